import { Agent, request } from 'node:http';
import { DynamoDBClient } from '@aws-sdk/client-dynamodb';
import { DynamoDBDocumentClient, ScanCommand } from '@aws-sdk/lib-dynamodb';
import { ChannelRepository, type StoredChannel } from '#shared/repositories/channels';
import { testMapper } from '#test/support/legacy-mapper';
import { startServerChild } from './create.ts';
import { type Figure, figure, median } from './figures.ts';
import { legacyRow } from './legacy-rows.ts';
import type { LocalServerReady } from './local-server-child.ts';

export interface ListBenchOptions {
  /** Channels in the table. */
  channels: number;
  /** Timed calls per query. */
  rounds: number;
  log: (line: string) => void;
}

/** Acceptance: any page of the list answers within this, through the local server, on this machine. */
const PAGE_TARGET_MS = 2_000;

/**
 * Part 4: `GET /api/channels/` over a table of `channels` channels made by the import's mapper from the import
 * benchmark's generated legacy rows. Times the first, a middle and the last page, a page past the end, a filter
 * and a keyword through the local server, against the floor of the same work: a raw Scan of the same projection
 * from this process.
 */
export async function benchList(options: ListBenchOptions): Promise<Figure[]> {
  const server = await startServerChild();
  const dynamo = new DynamoDBClient({
    endpoint: server.ready.dynamoEndpoint,
    region: 'us-east-1',
    credentials: server.ready.dynamoCredentials,
  });
  const documents = DynamoDBDocumentClient.from(dynamo, { marshallOptions: { removeUndefinedValues: true } });
  try {
    options.log(`list: writing ${options.channels} channels`);
    await fill(documents, options.channels);
    const agent = new Agent({ keepAlive: true, maxSockets: 4 });
    const lastPage = Math.ceil(options.channels / 10);
    const queries: Array<[string, string]> = [
      ['first page', '?page=1'],
      ['middle page', `?page=${Math.ceil(lastPage / 2)}`],
      ['last page', `?page=${lastPage}`],
      ['last page of 100', `?page=${Math.ceil(options.channels / 100)}&per_page=100`],
      ['page past the end', `?page=${lastPage + 1}`],
      ['status=disabled', '?status=disabled'],
      ['keyword=claude', '?keyword=claude'],
    ];
    const call = (query: string) => timedGet(server.ready, agent, `/api/channels/${query}`);
    await call('?page=1');
    const figures: Figure[] = [];
    const raw: number[] = [];
    for (let round = 0; round < options.rounds; round++) raw.push(await rawScan(documents));
    const floor = median(raw);
    for (const [name, query] of queries) {
      const times: number[] = [];
      for (let round = 0; round < options.rounds; round++) times.push(await call(query));
      options.log(`list ${name}: median ${Math.round(median(times))} ms, max ${Math.round(Math.max(...times))} ms`);
      figures.push(
        figure(
          `list ${options.channels} channels, ${name}: max of ${options.rounds}`,
          Math.max(...times),
          'ms',
          floor,
          {
            of: 'value',
            max: PAGE_TARGET_MS,
          },
        ),
      );
    }
    figures.push(figure(`list ${options.channels} channels: raw Scan of id, provider, name (floor)`, floor, 'ms'));
    agent.destroy();
    return figures;
  } finally {
    dynamo.destroy();
    await server.stop();
  }
}

async function fill(documents: DynamoDBDocumentClient, count: number): Promise<void> {
  const mapper = testMapper();
  const at = new Date().toISOString();
  const channels: StoredChannel[] = [];
  for (let id = 1; channels.length < count; id++) {
    const outcome = mapper.raw(legacyRow(id));
    if (outcome.outcome !== 'imported') continue;
    for (const { legacyId, ...c } of outcome.channels) {
      channels.push({ ...c, source: { legacyId, host: 'bench', database: 'legacy' }, createdAt: at, updatedAt: at });
    }
  }
  await new ChannelRepository(documents, 'channels', { writeConcurrency: 8 }).putMany(channels.slice(0, count));
}

async function rawScan(documents: DynamoDBDocumentClient): Promise<number> {
  const started = performance.now();
  let start: Record<string, unknown> | undefined;
  do {
    const page = await documents.send(
      new ScanCommand({
        TableName: 'channels',
        ProjectionExpression: '#id, #provider, #name',
        ExpressionAttributeNames: { '#id': 'id', '#provider': 'provider', '#name': 'name' },
        ExclusiveStartKey: start,
      }),
    );
    start = page.LastEvaluatedKey;
  } while (start);
  return performance.now() - started;
}

function timedGet(ready: LocalServerReady, agent: Agent, path: string): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const req = request(
      `${ready.url}${path}`,
      { agent, headers: { Authorization: `Bearer ${ready.adminKey}` } },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const body = Buffer.concat(chunks).toString('utf8');
          if (res.statusCode !== 200)
            reject(new Error(`GET ${path} answered ${res.statusCode}: ${body.slice(0, 200)}`));
          else resolve(performance.now() - started);
        });
      },
    );
    req.on('error', reject);
    req.end();
  });
}
