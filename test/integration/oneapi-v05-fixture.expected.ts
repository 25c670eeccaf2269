import { normalised, type Routing, target } from '#test/support/family-routing';

/*
 * What One API v0.5 routes from test/fixtures/legacygw-channels-v05.sql (and .pg.sql), worked out by hand from One
 * API's source at v0.5.11 (songquanpeng/one-api cf4e33cb12d67bdd3427b6fcee33d771b9cf8d06): an enabled row serves its
 * models (model/ability.go) at its base_url with its whole key; row 3 is manually disabled. Azure's API version is
 * `other` (no config column yet).
 */

export const ONEAPI_V05_EXPECTED_ROUTING: Routing = normalised({
  'gpt-3.5-turbo': [target('openai', 'https://legacy-proxy.example.com', 'sk-fixture-legacy-openai-0001')],
  'gpt-4': [target('openai', 'https://legacy-proxy.example.com', 'sk-fixture-legacy-openai-0001')],
  'gpt-35-turbo': [target('azure', 'https://legacy-res.openai.azure.com', 'fixturelegacyazure0002')],
});

export const ONEAPI_V05_EXPECTED_SKIPS: Readonly<Record<number, string>> = {};

export const ONEAPI_V05_LOST_MODELS: readonly string[] = [];

export const ONEAPI_V05_EXPECTED_SETTINGS: Readonly<Record<number, unknown>> = {
  1: { groups: ['default'] },
  2: { groups: ['default'], apiVersion: '2023-05-15', modelMapping: { 'gpt-3.5-turbo': 'gpt-35-turbo' } },
  3: { groups: ['default'] },
};

export const ONEAPI_V05_EXPECTED_WARNINGS: Readonly<Record<number, readonly string[]>> = {};
