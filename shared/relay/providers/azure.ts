import { baseUrlOf, ENDPOINT_PATHS, type ProviderAdapter } from './types.ts';

/**
 * Azure OpenAI: `{base}/openai/deployments/{deployment}/{chat/completions|embeddings}?api-version={apiVersion}`, key in
 * `api-key`. The deployment is the mapped model name with its dots removed, as One API does (songquanpeng/one-api
 * 8df4a26, `relay/adaptor/openai/adaptor.go` GetRequestURL: `gpt-3.5-turbo` -> deployment `gpt-35-turbo`; issue 1191).
 * The API version is the channel's `apiVersion` (One API's `other` column), else AZURE_DEFAULT_API_VERSION.
 */
export const AZURE_DEFAULT_API_VERSION = '2024-10-21';

/** The deployment name One API derives from a model name: the name without dots. */
export function azureDeploymentName(model: string): string {
  return model.replaceAll('.', '');
}

export const azure: ProviderAdapter = {
  endpoints: ['chat', 'embeddings'],
  streamUsageOption: true,
  buildRequest({ channel, endpoint, body }) {
    const deployment = encodeURIComponent(azureDeploymentName(String(body.model ?? '')));
    const version = encodeURIComponent(channel.settings.apiVersion || AZURE_DEFAULT_API_VERSION);
    const url = `${baseUrlOf(channel, undefined)}/openai/deployments/${deployment}${ENDPOINT_PATHS[endpoint]}?api-version=${version}`;
    return {
      url,
      headers: { 'content-type': 'application/json', 'api-key': channel.key },
      body: JSON.stringify(body),
    };
  },
};
