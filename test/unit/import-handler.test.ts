import type { APIGatewayProxyEvent } from 'aws-lambda';
import { beforeAll, describe, expect, it } from 'vitest';
import { proxyEvent } from '#test/support/events';
import { loadHandler } from '#test/support/handler';

type Handler = typeof import('#functions/import-legacygw/handler')['handler'];
let handler: Handler;

beforeAll(async () => {
  ({ handler } = await loadHandler<typeof import('#functions/import-legacygw/handler')>(
    '#functions/import-legacygw/handler',
    {
      CHANNELS_TABLE: 'channels-unit',
      CHANNEL_ID_KEY_SECRET_ID: 'channel-id-key',
      LOG_LEVEL: 'SILENT',
      LEGACYGW_ALLOWED_HOSTS: '',
    },
  ));
});

function event(body: unknown, scope: string | null = 'admin'): APIGatewayProxyEvent {
  const authorizer = scope === null ? null : { scope, teamId: '', tmbId: '', tokenId: 'admin' };
  return proxyEvent(
    '/api/channels/import/legacygw',
    typeof body === 'string' ? body : JSON.stringify(body),
    authorizer,
  );
}

async function call(body: unknown, scope?: string | null) {
  const response = await handler(event(body, scope));
  return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
}

describe('import-legacygw handler', () => {
  it('answers 401 in the proxy envelope when the caller is not the admin', async () => {
    const reply = await call({ dsn: 'u:p@tcp(db:3306)/legacy' }, 'dataset');

    expect(reply).toEqual({ status: 401, body: { success: false, message: expect.stringMatching(/admin key/) } });
  });

  it('answers 401 when the authorizer context is missing', async () => {
    const reply = await call({ dsn: 'u:p@tcp(169.254.169.254:3306)/legacy' }, null);

    expect(reply).toEqual({ status: 401, body: { success: false, message: expect.stringMatching(/admin key/) } });
  });

  it.each([
    ['not JSON', '{"dsn":', /valid JSON/],
    ['not an object', '["dsn"]', /JSON object/],
    ['without a dsn', {}, /dsn is required/],
    ['with a dsn that is not a string', { dsn: 42 }, /dsn is required and must be a string/],
    ['with a dryRun that is not a boolean', { dsn: 'u:p@tcp(db:3306)/legacy', dryRun: 'yes' }, /dryRun/],
  ])('answers 400 for a body %s', async (_, body, message) => {
    const reply = await call(body);

    expect(reply).toEqual({ status: 400, body: { success: false, message: expect.stringMatching(message) } });
  });

  it('ignores unknown fields and reports the DSN problem without repeating the password', async () => {
    const password = 'Sup3r:Secret@(x)';

    const reply = await call({ dsn: `importer:${password}@unix(/tmp/sock)/legacy`, verbose: true, extra: { a: 1 } });

    expect(reply.status).toBe(400);
    expect(reply.body.message).toMatch(/network must be tcp/);
    expect(JSON.stringify(reply.body)).not.toContain('Secret');
  });

  it('refuses a link-local database host with 400', async () => {
    const reply = await call({ dsn: 'u:p@tcp(169.254.169.254:3306)/legacy' });

    expect(reply).toEqual({ status: 400, body: { success: false, message: expect.stringMatching(/link-local/) } });
  });
});

describe('import-legacygw handler on the rows route', () => {
  const rowsCall = async (body: string, scope: string | null = 'admin') => {
    const authorizer = scope === null ? null : { scope, teamId: '', tmbId: '', tokenId: 'admin' };
    const response = await handler(proxyEvent('/api/channels/import/rows', body, authorizer));
    return { status: response.statusCode, body: JSON.parse(response.body) as Record<string, unknown> };
  };

  it('answers 401 in the proxy envelope when the caller is not the admin', async () => {
    const reply = await rowsCall('{"columns":["id"],"rows":[]}', 'dataset');

    expect(reply).toEqual({ status: 401, body: { success: false, message: expect.stringMatching(/admin key/) } });
  });

  it('answers 413 for a body over 5 MiB before parsing it', async () => {
    const reply = await rowsCall(`{"columns":["id"],"rows":[],"pad":"${'x'.repeat(5 * 1024 * 1024)}"}`);

    expect(reply).toEqual({
      status: 413,
      body: { success: false, message: expect.stringMatching(/at most 5 MiB \(5242880 bytes\)/) },
    });
  });

  it('reads a rows body, not a DSN body: a DSN sent there is a 400 naming the missing fields', async () => {
    const reply = await rowsCall('{"dsn":"u:p@tcp(db:3306)/legacy"}');

    expect(reply).toEqual({
      status: 400,
      body: { success: false, message: expect.stringMatching(/columns is required/) },
    });
    expect(JSON.stringify(reply.body)).not.toContain('u:p@');
  });
});
