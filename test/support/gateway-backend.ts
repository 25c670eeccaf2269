import type { LocalBackend } from '#infra/local/backend';
import { EXTERNAL_ENGINE_CREDENTIALS } from '#infra/local/dynamo-engine';
import { TABLES } from '#shared/tables';

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
    // Every table under its logical name (none is created: nothing here reaches an engine).
    tableNames: Object.fromEntries(Object.keys(TABLES).map((name) => [name, name])) as LocalBackend['tableNames'],
    close: async () => {},
    ...parts,
  };
}
