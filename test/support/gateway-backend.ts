import type { LocalBackend } from '#infra/local/backend';
import { EXTERNAL_ENGINE_CREDENTIALS } from '#infra/local/dynamo-engine';

/**
 * A backend for the local gateway alone (infra/local/gateway.ts): no engine, no table, no credentials file; the test
 * gives the authorizer and the functions, and may override anything else.
 */
export function gatewayOnlyBackend(
  parts: Pick<LocalBackend, 'authorizer' | 'handlerFor'> & Partial<LocalBackend>,
): LocalBackend {
  return {
    dynamoEndpoint: 'http://unused',
    dynamo: { endpoint: 'http://unused', credentials: EXTERNAL_ENGINE_CREDENTIALS },
    credentialsFile: '/unused',
    credentials: { adminKey: 'unused', accessTokens: [] },
    createdCredentials: false,
    embeddedEngine: true,
    tableNames: {
      datasets: 'datasets',
      channels: 'channels',
      relayKeys: 'relayKeys',
      relayState: 'relayState',
      usage: 'usage',
    },
    close: async () => {},
    ...parts,
  };
}
