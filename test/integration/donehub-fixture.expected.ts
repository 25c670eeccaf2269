import { normalised, type Routing, target } from '#test/support/family-routing';

/*
 * What Done Hub routes from test/fixtures/donehub-channels.sql (and .pg.sql), worked out by hand from Done Hub's
 * source (deanxv/done-hub at 42841b35bf3f687ef8b92dae7633b95384ca0c0b) by the rules of
 * test/integration/onehub-fixture.expected.ts, which Done Hub shares (model/balancer.go, providers/base/common.go),
 * plus its own types 58, 59 and 62 (providers/claudecode, codex, bedrockmessages base.go).
 */

const openaiMain = target('openai', 'https://api.openai.com', 'sk-fixture-donehub-openai-0001');
const gemini = target('gemini', 'https://generativelanguage.googleapis.com', 'AIzaSyFixtureDoneHubGemini0000000002');

export const DONEHUB_EXPECTED_ROUTING: Routing = normalised({
  'gpt-4o': [openaiMain, target('openai', 'https://openai-gw.example.com', 'sk-fixture-donehub-shared')],
  'gpt-4o-mini': [openaiMain],
  'gemini-2.5-pro': [gemini],
  'gemini-2.5-flash': [gemini],
  'deepseek-chat': [target('deepseek', 'https://api.deepseek.com', 'sk-fixture-donehub-deepseek-0003')],
  'llama-3.3-70b-versatile': [target('groq', 'https://api.groq.com/openai', 'gsk_fixture_donehub_groq_0004')],
  'grok-4': [target('xai', 'https://api.x.ai', 'xai-fixture-donehub-0005')],
  'kimi-k2-0711-preview': [target('moonshot', 'https://api.moonshot.cn', 'sk-fixture-donehub-moonshot-0006')],
  'anthropic.claude-3-5-sonnet-20241022-v2:0': [
    target('aws', '', 'AKIAFIXTUREDONEHUB0007|fixtureDoneHubSecret0007|us-east-1'),
  ],
  'claude-sonnet-4-20250514': [
    target('bedrock-messages', '', 'AKIAFIXTUREDONEHUB0008|fixtureDoneHubSecret0008|us-west-2'),
    target('claude-code', 'https://api.anthropic.com', 'sk-ant-oat-fixture-0014'),
  ],
  'gpt-4.1': [target('openai', 'https://relay.example.com', 'sk-fixture-donehub-override-0012')],
  'gpt-5-codex': [target('codex', 'https://chatgpt.com', 'fixture-codex-oauth-0013')],
});

export const DONEHUB_EXPECTED_SKIPS: Readonly<Record<number, string>> = {
  11: 'deleted in the legacy gateway',
  15: 'unknown legacy channel type 63',
  16: 'Vertex AI other is not Region|ProjectID',
};

const DEFAULT = { groups: ['default'] };

/** Settings of every imported row, by legacy id. */
export const DONEHUB_EXPECTED_SETTINGS: Readonly<Record<number, unknown>> = {
  1: DEFAULT,
  2: DEFAULT,
  3: DEFAULT,
  4: DEFAULT,
  5: DEFAULT,
  6: DEFAULT,
  7: { groups: ['default'], region: 'us-east-1' },
  8: { groups: ['default'], region: 'us-west-2' },
  9: DEFAULT,
  10: DEFAULT,
  12: {
    groups: ['vip'],
    headerOverride: { 'X-Team': 'fixture' },
    extra: { header_override: { '*': '' }, pass_through_body: true, cost_ratio: 1.5 },
  },
  13: { groups: ['default'], extra: { other: { user_agent: 'fixture-ua' } } },
  14: DEFAULT,
};

export const DONEHUB_EXPECTED_WARNINGS: Readonly<Record<number, readonly string[]>> = {};

/** The skipped rows' models (gpt-4o, gemini-2.5-pro) are served by other rows too: no route is lost. */
export const DONEHUB_LOST_MODELS: readonly string[] = [];
