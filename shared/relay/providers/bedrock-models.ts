/*
 * Model names as callers send them → Bedrock model ids, and the cross-region inference profile a channel's region
 * uses (docs/relay.md, "Providers"). The names, ids and prefixes are those New API maps
 * (QuantumNous/new-api relay/channel/aws/constants.go at 0c171da0aa3be80c3955f50841e4307f74ce2951, applied in
 * relay-aws.go at 0564a1fb490672b6935849af8a6123425cd6b866), with One API's older Claude names
 * (songquanpeng/one-api relay/adaptor/aws/claude/main.go at 0ad609ade6dad16bb9ec45421083c73b64ede7d1). A name not
 * listed is sent as it is (a Bedrock id, an inference profile id or ARN), as both forks do.
 */

const CLAUDE: Readonly<Record<string, string>> = {
  'claude-instant-1.2': 'anthropic.claude-instant-v1',
  'claude-2.0': 'anthropic.claude-v2',
  'claude-2.1': 'anthropic.claude-v2:1',
  'claude-3-haiku-20240307': 'anthropic.claude-3-haiku-20240307-v1:0',
  'claude-3-sonnet-20240229': 'anthropic.claude-3-sonnet-20240229-v1:0',
  'claude-3-opus-20240229': 'anthropic.claude-3-opus-20240229-v1:0',
  'claude-3-5-sonnet-20240620': 'anthropic.claude-3-5-sonnet-20240620-v1:0',
  'claude-3-5-sonnet-20241022': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-sonnet-latest': 'anthropic.claude-3-5-sonnet-20241022-v2:0',
  'claude-3-5-haiku-20241022': 'anthropic.claude-3-5-haiku-20241022-v1:0',
  'claude-3-7-sonnet-20250219': 'anthropic.claude-3-7-sonnet-20250219-v1:0',
  'claude-sonnet-4-20250514': 'anthropic.claude-sonnet-4-20250514-v1:0',
  'claude-opus-4-20250514': 'anthropic.claude-opus-4-20250514-v1:0',
  'claude-opus-4-1-20250805': 'anthropic.claude-opus-4-1-20250805-v1:0',
  'claude-sonnet-4-5-20250929': 'anthropic.claude-sonnet-4-5-20250929-v1:0',
  'claude-haiku-4-5-20251001': 'anthropic.claude-haiku-4-5-20251001-v1:0',
  'claude-opus-4-5-20251101': 'anthropic.claude-opus-4-5-20251101-v1:0',
  'claude-sonnet-4-6': 'anthropic.claude-sonnet-4-6',
  'claude-opus-4-6': 'anthropic.claude-opus-4-6-v1',
  'claude-opus-4-7': 'anthropic.claude-opus-4-7',
  'claude-sonnet-5': 'anthropic.claude-sonnet-5',
  'nova-micro-v1:0': 'amazon.nova-micro-v1:0',
  'nova-lite-v1:0': 'amazon.nova-lite-v1:0',
  'nova-pro-v1:0': 'amazon.nova-pro-v1:0',
  'nova-premier-v1:0': 'amazon.nova-premier-v1:0',
};

const US_EU_AP = ['us', 'eu', 'ap'] as const;
// New API lists Nova's Asia Pacific profiles under `apac`, which no region's first part matches: us and eu only.
const US_EU = ['us', 'eu'] as const;
/** Which region groups (the region's first part) have a cross-region inference profile for a model id. */
const CROSS_REGION: Readonly<Record<string, readonly string[]>> = {
  'anthropic.claude-3-sonnet-20240229-v1:0': US_EU_AP,
  'anthropic.claude-3-opus-20240229-v1:0': ['us'],
  'anthropic.claude-3-haiku-20240307-v1:0': US_EU_AP,
  'anthropic.claude-3-5-sonnet-20240620-v1:0': US_EU_AP,
  'anthropic.claude-3-5-sonnet-20241022-v2:0': ['us', 'ap'],
  'anthropic.claude-3-5-haiku-20241022-v1:0': ['us'],
  'anthropic.claude-3-7-sonnet-20250219-v1:0': US_EU_AP,
  'anthropic.claude-sonnet-4-20250514-v1:0': US_EU_AP,
  'anthropic.claude-opus-4-20250514-v1:0': ['us'],
  'anthropic.claude-opus-4-1-20250805-v1:0': ['us'],
  'anthropic.claude-sonnet-4-5-20250929-v1:0': US_EU_AP,
  'anthropic.claude-haiku-4-5-20251001-v1:0': US_EU_AP,
  'anthropic.claude-opus-4-5-20251101-v1:0': US_EU_AP,
  'anthropic.claude-sonnet-4-6': US_EU_AP,
  'anthropic.claude-opus-4-6-v1': US_EU_AP,
  'anthropic.claude-opus-4-7': US_EU_AP,
  'anthropic.claude-sonnet-5': US_EU_AP,
  'amazon.nova-micro-v1:0': US_EU,
  'amazon.nova-lite-v1:0': US_EU,
  'amazon.nova-pro-v1:0': US_EU,
  'amazon.nova-premier-v1:0': ['us'],
};

/** The profile prefix of a region group: Asia Pacific's profiles are `apac.`. */
const PROFILE_PREFIX: Readonly<Record<string, string>> = { us: 'us', eu: 'eu', ap: 'apac' };

/** The Bedrock model id of a model name (a name not listed is taken as an id). */
export const bedrockFoundationId = (model: string): string =>
  Object.hasOwn(CLAUDE, model) ? (CLAUDE[model] as string) : model;

/** The Bedrock model id (or inference profile id) a model name is sent as from a channel in `region`. */
export function bedrockModelId(model: string, region: string): string {
  const id = bedrockFoundationId(model);
  const group = region.split('-')[0] ?? '';
  const groups = Object.hasOwn(CROSS_REGION, id) ? CROSS_REGION[id] : undefined;
  const prefix = Object.hasOwn(PROFILE_PREFIX, group) ? PROFILE_PREFIX[group] : undefined;
  return groups?.includes(group) && prefix ? `${prefix}.${id}` : id;
}
