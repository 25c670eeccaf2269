import { afterAll, describe, expect, it } from 'vitest';
import { captureOutput } from '#test/support/capture-output';
import { type EmfRecord, emfRecords } from '#test/support/emf';
import { freePort } from '#test/support/mariadb';
import { channelPath } from './channel-review.helpers.ts';
import { createRequest, expectCreated } from './create-dataset.helpers.ts';
import { FIXTURE_SQL } from './import.helpers.ts';
import { expectError, expectNoSecrets, expectReport, useImportHarness } from './import-http.helpers.ts';
import { kbClient } from './knowledge-base.helpers.ts';

// The EMF lines the real create and import handlers print, read back as CloudWatch would parse them.
// The local server runs the handlers in this process, so their stdout is captured around each call.

const NAMESPACE = 'Test/BusinessMetrics';
// Read by the handlers at module load (their cold start), which the harness triggers.
const { db, server, channels, callImport, callProxy } = useImportHarness({
  POWERTOOLS_METRICS_DISABLED: 'false',
  POWERTOOLS_METRICS_NAMESPACE: NAMESPACE,
});

afterAll(() => {
  process.env.POWERTOOLS_METRICS_DISABLED = 'true';
  delete process.env.POWERTOOLS_METRICS_NAMESPACE;
});

/** The single EMF record of an exchange, checked for the namespace and the one `service` dimension. */
function onlyRecord(output: string): EmfRecord {
  const records = emfRecords(output);
  expect(records).toHaveLength(1);
  const record = records[0] as EmfRecord;
  expect(record.namespace).toBe(NAMESPACE);
  expect(record.dimensions).toEqual(['service']);
  expect(record.raw.service).toBe('kb-channel-gateway');
  return record;
}

async function create(body: unknown) {
  const token = server.credentials.accessTokens[0]?.token ?? '';
  const output = captureOutput();
  try {
    return { reply: await createRequest(server, body, `Bearer ${token}`), output: output.text() };
  } finally {
    output.restore();
  }
}

describe('business metrics of the create handler', () => {
  it('prints DatasetsCreated = 1 (Count) for a created dataset', async () => {
    const { reply, output } = await create({ name: 'Metrics docs' });

    expectCreated(reply);
    expect(onlyRecord(output).metrics).toEqual({ DatasetsCreated: { unit: 'Count', value: 1 } });
  });

  it('prints no metric for a rejected create', async () => {
    const { reply, output } = await create({ name: '   ' });

    expect(reply.status).toBe(400);
    expect(emfRecords(output)).toEqual([]);
  });
});

describe('business metrics of the delete handler', () => {
  async function remove(id: string) {
    const token = server.credentials.accessTokens[0]?.token ?? '';
    const output = captureOutput();
    try {
      return { reply: await kbClient(server, `Bearer ${token}`).delete({ id }), output: output.text() };
    } finally {
      output.restore();
    }
  }

  it('prints DatasetsDeleted = the records a delete removed: a folder with its subtree', async () => {
    const folder = expectCreated((await create({ name: 'Doomed', type: 'folder' })).reply);
    const sub = expectCreated((await create({ name: 'Sub', type: 'folder', parentId: folder })).reply);
    for (const parentId of [folder, sub, sub]) expectCreated((await create({ name: 'd', parentId })).reply);

    const { reply, output } = await remove(folder);

    expect(reply.status).toBe(200);
    expect(onlyRecord(output).metrics).toEqual({ DatasetsDeleted: { unit: 'Count', value: 5 } });
  });

  it('prints no metric for a delete of an id that does not exist', async () => {
    const { reply, output } = await remove('ffffffffffffffffffffffff');

    expect(reply.status).toBe(404);
    expect(emfRecords(output)).toEqual([]);
  });
});

describe('business metrics of the import handler', () => {
  it('prints the rows, channels and duration of an import of the fixture, and again for a re-run that changes nothing', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();

    const first = await callImport({ json: { dsn: db.dsn(database) } });
    const second = await callImport({ json: { dsn: db.dsn(database) } });

    expectReport(first);
    expectReport(second);
    const metrics = [onlyRecord(first.output).metrics, onlyRecord(second.output).metrics];
    for (const m of metrics) {
      expect(m.ImportDuration?.unit).toBe('Milliseconds');
      expect(Number.isInteger(m.ImportDuration?.value)).toBe(true);
      expect(m.ImportDuration?.value).toBeGreaterThanOrEqual(0);
    }
    const counts = (created: number, unchanged: number) => ({
      ImportRowsImported: { unit: 'Count', value: 18 },
      ImportRowsSkipped: { unit: 'Count', value: 2 },
      ChannelsCreated: { unit: 'Count', value: created },
      ChannelsUpdated: { unit: 'Count', value: 0 },
      ChannelsUnchanged: { unit: 'Count', value: unchanged },
      ImportDuration: expect.anything(),
    });
    expect(metrics[0]).toEqual(counts(21, 0));
    expect(metrics[1]).toEqual(counts(0, 21));
    // Counts only: no key, password, DSN, host or database name in any metric line.
    expectNoSecrets([first, second], { server, mysqlPassword: db.password });
    for (const exchange of [first, second]) {
      const lines = emfRecords(exchange.output).map((r) => JSON.stringify(r.raw));
      for (const value of [db.user, db.password, database, db.host]) expect(lines.join('')).not.toContain(value);
    }
  });

  it('prints no metric for a dry run, which stores nothing', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);

    const reply = await callImport({ json: { dsn: db.dsn(database), dryRun: true } });

    expect(expectReport(reply).dryRun).toBe(true);
    expect(emfRecords(reply.output)).toEqual([]);
  });

  it('prints ImportsFailed = 1 on the error path when the database is unreachable (502)', async () => {
    const port = await freePort();

    const reply = await callImport({ json: { dsn: `importer:pw@tcp(127.0.0.1:${port})/legacy?timeout=2s` } });

    expectError(reply, 502, /./);
    expect(onlyRecord(reply.output).metrics).toEqual({ ImportsFailed: { unit: 'Count', value: 1 } });
  });

  it('prints no metric when the DSN is the caller to fix (400)', async () => {
    const reply = await callImport({ json: { dsn: 'importer:pw@unix(/tmp/sock)/legacy' } });

    expectError(reply, 400, /tcp/);
    expect(emfRecords(reply.output)).toEqual([]);
  });
});

describe('business metrics of the channel review API', () => {
  it('prints ChannelsEdited = 1 (Count) for a successful update, and nothing for a refused one', async () => {
    const database = await db.createDatabase(undefined, FIXTURE_SQL);
    await channels.clear();
    expectReport(await callImport({ json: { dsn: db.dsn(database), dryRun: false } }));
    const [channel] = await channels.scan();
    const path = channelPath(channel?.id ?? '');

    const edited = await callProxy({ method: 'PUT', path, json: { status: 'disabled' } });
    const refused = await callProxy({ method: 'PUT', path, json: { status: 'off' } });
    const read = await callProxy({ method: 'GET', path });

    expect([edited.status, refused.status, read.status]).toEqual([200, 400, 200]);
    expect(onlyRecord(edited.output).metrics).toEqual({ ChannelsEdited: { unit: 'Count', value: 1 } });
    expect(emfRecords(refused.output)).toEqual([]);
    expect(emfRecords(read.output)).toEqual([]);
    expectNoSecrets([edited, refused, read], { server });
  });
});
