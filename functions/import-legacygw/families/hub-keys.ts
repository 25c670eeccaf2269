import type { KeysResult, RowType, RowValues } from './family.ts';
import {
  ALI,
  BAIDU,
  BEDROCK,
  BEDROCK_MESSAGES,
  CLOUDFLARE,
  GEMINI,
  HUNYUAN,
  TENCENT,
  VERTEX_AI,
  XUNFEI,
} from './hub-types.ts';
import { isRecord, parseJson, pluginEnabled, text } from './hub-values.ts';

/*
 * A hub row's keys (families/hub.ts), read as One Hub and Done Hub read them at the commits hub.ts names.
 */

/**
 * The row's key in the product's format for its provider. A hub row holds ONE key: the editor splits what the
 * operator pastes on line breaks into one row per key (controller/channel.go AddChannel), and the relay sends the
 * column as it is, so a line break inside (a Vertex AI service account's JSON) belongs to the key.
 */
export function hubKeys(row: RowValues, { type }: RowType): KeysResult {
  const key = text(row.key);
  if (key === '') return { keys: [] };
  if ((type === BAIDU || type === ALI || type === GEMINI) && pluginEnabled(row, 'use_openai_api')) {
    // One Hub then speaks the provider's OpenAI-compatible API at another base URL (providers/baidu|ali|gemini
    // base.go); the type table has one provider per type, so such a row is not imported rather than misread.
    return { skip: "OpenAI-compatible mode (plugin use_openai_api) is another API than the type's provider" };
  }
  switch (type) {
    case BEDROCK:
    case BEDROCK_MESSAGES:
      return awsKey(key);
    case CLOUDFLARE: {
      const parts = key.split('|');
      return parts.length === 2 && parts.every((p) => p !== '')
        ? { keys: [parts[1]!] }
        : { skip: 'Cloudflare key is not ACCOUNT_ID|API_TOKEN' };
    }
    case VERTEX_AI:
      return vertexKey(key, row.other);
    case HUNYUAN:
      return { skip: 'Hunyuan key SecretId|SecretKey has no AppId for the tencent key AppId|SecretId|SecretKey' };
    case BAIDU:
      return parts(key, 2) ? { keys: [key] } : { skip: 'Baidu key is not APIKey|SecretKey' };
    case XUNFEI:
      return parts(key, 3) ? { keys: [key] } : { skip: 'Xunfei key is not APPID|APISecret|APIKey' };
    case TENCENT:
      return parts(key, 3) && /^\d+$/.test(key.split('|')[0]!)
        ? { keys: [key] }
        : { skip: 'Tencent key is not AppId|SecretId|SecretKey' };
    default:
      return { keys: [key] };
  }
}

/** Exactly n non-empty `|`-separated parts. */
function parts(key: string, n: number): boolean {
  const split = key.split('|');
  return split.length === n && split.every((p) => p.trim() !== '');
}

// One Hub: Region|AccessKeyID|SecretAccessKey[|SessionToken] or Region|APIToken (providers/bedrock/base.go
// getKeyConfig). The product's AWS key is ak|sk|region, which has room for neither a session token nor an API token.
function awsKey(key: string): KeysResult {
  const split = key.split('|');
  if (split.length === 2 && split.every((p) => p !== '')) {
    return { skip: 'AWS key Region|APIToken (a Bedrock API key) has no place in the AWS key ak|sk|region' };
  }
  const [region, ak, sk, sessionToken] = split;
  if ((split.length !== 3 && split.length !== 4) || !region || !ak || !sk) {
    return { skip: 'AWS key is not Region|AccessKeyID|SecretAccessKey' };
  }
  if (split.length === 4 && sessionToken !== '') {
    return { skip: 'AWS key with a SessionToken has no place in the AWS key ak|sk|region' };
  }
  return { keys: [`${ak}|${sk}|${region}`] };
}

// One Hub keeps the service account's JSON in `key` and Region|ProjectID in `other` (providers/vertexai/base.go);
// the product's Vertex AI key is region|project_id|ADC JSON.
function vertexKey(key: string, other: string | null | undefined): KeysResult {
  const location = vertexLocation(other);
  if (location === undefined) return { skip: 'Vertex AI other is not Region|ProjectID' };
  if (!isRecord(parseJson(key))) return { skip: 'Vertex AI key is not a service-account JSON object' };
  return { keys: [`${location.region}|${location.projectId}|${key}`] };
}

export function vertexLocation(other: string | null | undefined): { region: string; projectId: string } | undefined {
  const split = text(other).split('|');
  if (split.length !== 2) return undefined;
  const [region, projectId] = split.map((p) => p.trim());
  return region && projectId ? { region, projectId } : undefined;
}
