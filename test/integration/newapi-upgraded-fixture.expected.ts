import { normalised, type Routing, target } from '#test/support/family-routing';

/*
 * What New API routes from test/fixtures/newapi-upgraded-channels.sql (and .pg.sql), a One API table upgraded in place
 * to New API, worked out by hand from New API's source (QuantumNous/new-api at 0102ffab86da3461be812c605d92800649e6eb06
 * and its constant/channel.go), not from the import's code. New API reads every row with its own numbers, also rows
 * One API wrote: 36 is Suno (no default base URL), 42 Mistral (the key column sent as it is), 4 Ollama, 2
 * Midjourney. It never reads One API's config or system_prompt: AWS sends the key column's ak|sk|region, Azure takes
 * its API version from other. A row older than channel_info (NULL) is not multi-key: its two lines are one key.
 */

export const NEWAPI_UPGRADED_EXPECTED_ROUTING: Routing = normalised({
  'deepseek-chat': [
    target('suno', '', 'sk-fixture-upgraded-0001'),
    target('deepseek', 'https://api.deepseek.com', 'sk-fixture-upgraded-0003'),
  ],
  'deepseek-reasoner': [target('deepseek', 'https://api.deepseek.com', 'sk-fixture-upgraded-0003')],
  'gpt-4o': [
    target('openai', 'https://api.openai.com', 'sk-fixture-upgraded-0002'),
    target('azure', 'https://fixture-upgraded.openai.azure.com', 'fixtureazureupgradedkey000000006'),
    target('ollama', 'http://localhost:11434', 'sk-fixture-upgraded-0008'),
  ],
  'gemini-1.5-pro-002': [
    target('mistral', 'https://api.mistral.ai', 'us-central1|fixture-upgraded-project|{"type":"service_account"}'),
  ],
  'claude-3-5-sonnet-20241022': [target('aws', '', 'AKIAFIXTUREUPGRADED5|fixtureUpgradedSecretKeyColumn|eu-west-1')],
  'gpt-4o-mini': [
    target('openai', 'https://api.openai.com', 'sk-fixture-upgraded-line-a\nsk-fixture-upgraded-line-b'),
    target('midjourney', 'https://api2d-proxy.example.com', 'fk-fixture-upgraded-0009'),
  ],
});

export const NEWAPI_UPGRADED_EXPECTED_SKIPS: Readonly<Record<number, string>> = {};

export const NEWAPI_UPGRADED_LOST_MODELS: readonly string[] = [];

const DEFAULT = { groups: ['default'] };

export const NEWAPI_UPGRADED_EXPECTED_SETTINGS: Readonly<Record<number, unknown>> = {
  1: DEFAULT,
  2: DEFAULT,
  3: { groups: ['default'], testModel: 'deepseek-chat' },
  4: DEFAULT,
  5: DEFAULT,
  6: { groups: ['default'], apiVersion: '2024-02-15-preview' },
  7: DEFAULT,
  8: DEFAULT,
  9: DEFAULT,
  10: { groups: ['default'], extra: { plugin: 'web_search' } },
};

export const NEWAPI_UPGRADED_EXPECTED_WARNINGS: Readonly<Record<number, readonly string[]>> = {};
