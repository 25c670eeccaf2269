import { describe, it } from 'vitest';
import { useTestServer } from '#test/support/local-server';
import { freePort } from '#test/support/mariadb';
import { callImport, expectError, expectNoSecrets } from './import-http.helpers.ts';

// Read by the import handler at its cold start. The metadata address is listed on purpose: the
// link-local refusal must win over the operator's list.
const server = useTestServer({
  LEGACYGW_ALLOWED_HOSTS: '10.0.0.0/8, legacy-db.internal, 169.254.169.254',
  LOG_LEVEL: 'DEBUG',
});

const password = 'Sup3r@secret:/(pw)';

describe('an import with LEGACYGW_ALLOWED_HOSTS set', () => {
  it('refuses a host outside the allow-list with 400 before connecting', async () => {
    // Nothing listens there: without the allow-list this would be a 502 "connection was refused".
    const dsn = `importer:${password}@tcp(127.0.0.1:${await freePort()})/legacy`;

    const reply = await callImport(server, { json: { dsn } });

    expectError(reply, 400, /not in the allowed hosts \(LEGACYGW_ALLOWED_HOSTS\)/);
    expectNoSecrets([reply], { server, mysqlPassword: password });
  });

  it('still refuses a link-local host that the allow-list names', async () => {
    const dsn = `importer:${password}@tcp(169.254.169.254:3306)/legacy?timeout=1s`;

    const reply = await callImport(server, { json: { dsn } });

    expectError(reply, 400, /link-local/);
    expectNoSecrets([reply], { server, mysqlPassword: password });
  });
});
