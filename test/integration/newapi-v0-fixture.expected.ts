import { normalised, type Routing, target } from '#test/support/family-routing';

/*
 * What New API routes from test/fixtures/newapi-v0-channels.sql (and .pg.sql), a table of the v0.0.4 .. v0.2.0
 * schema, worked out by hand from New API's source (Calcium-Ion/new-api v0.0.4, d6ce413c926ebbb57977ee92a50d6ba7a12d3e97,
 * and the numbers of QuantumNous/new-api's constant/channel.go), not from the import's code:
 * - model/ability.go: a row with status 1 serves every model of `models` in every group of `group`;
 * - the row's base_url, else ChannelBaseURLs[type];
 * - the whole key column is the key (no multi-key mode in these versions), line breaks included.
 * Types 2, 4 and 5 meant One API's providers in the first of these versions and New API's own in the last, so such
 * rows are skipped, never guessed. Skipped rows are left out: the oracle holds for every imported row.
 */

export const NEWAPI_V0_EXPECTED_ROUTING: Routing = normalised({
  'gpt-4': [target('openai', 'https://api.openai.com', 'sk-fixture-newapi-v0-0001')],
  'gpt-3.5-turbo': [target('openai', 'https://api.openai.com', 'sk-fixture-newapi-v0-0001')],
  'gemini-pro': [target('gemini', 'https://generativelanguage.googleapis.com', 'AIzaFixtureNewApiV0Gemini00000004')],
  'gpt-35-turbo': [target('azure', 'https://fixture-newapi-v0.openai.azure.com', 'fixtureazurenewapiv0key000000005')],
  'gpt-4-turbo': [
    target('openai', 'https://api.openai.com', 'sk-fixture-newapi-v0-line-a\nsk-fixture-newapi-v0-line-b'),
  ],
  'ERNIE-Bot-4': [target('baidu', 'https://aip.baidubce.com', 'fixtureBaiduV0ApiKey0007|fixtureBaiduV0Secret0007')],
  'claude-2.1': [target('anthropic', 'https://api.anthropic.com', 'sk-ant-fixture-newapi-v0-0009')],
  'claude-3-sonnet-20240229': [target('aws', '', 'AKIAFIXTURENEWAPIV0|fixtureNewApiV0Secret|us-east-1')],
});

export const NEWAPI_V0_EXPECTED_SKIPS: Readonly<Record<number, string>> = {
  2: 'New API type 2 is ambiguous in a table without test_model, older than v0.2.1 (API2D until v0.2.0.1)',
  3: 'New API type 4 is ambiguous in a table without test_model, older than v0.2.1 (CloseAI until v0.2.0.2)',
};

/** Models served only by skipped rows (row 3's gpt-4 is also row 1's). */
export const NEWAPI_V0_LOST_MODELS: readonly string[] = [];

const DEFAULT = { groups: ['default'] };

export const NEWAPI_V0_EXPECTED_SETTINGS: Readonly<Record<number, unknown>> = {
  1: { groups: ['default'], organization: 'org-fixture-v0' },
  4: { groups: ['default'], apiVersion: 'v1beta' },
  5: { groups: ['default'], apiVersion: '2023-12-01-preview', modelMapping: { 'gpt-3.5-turbo': 'gpt-35-turbo' } },
  6: DEFAULT,
  7: DEFAULT,
  8: { groups: ['default'], priority: 3, weight: 7 },
  9: { groups: ['default'], priority: 2 },
  10: DEFAULT,
};

export const NEWAPI_V0_EXPECTED_WARNINGS: Readonly<Record<number, readonly string[]>> = {};
