/**
 * Child process of the create benchmark: the local server as `npm start` composes it (in-memory
 * engine in a process of its own, real authorizer and handler, access log to stdout), reporting its
 * addresses over IPC.
 * Runs under tsx; stops when the parent disconnects.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalBackend } from '#infra/local/backend';
import type { EngineCredentials } from '#infra/local/dynamo-engine';
import { startGateway } from '#infra/local/gateway';

/** What the child tells the parent once it listens. */
export interface LocalServerReady {
  url: string;
  dynamoEndpoint: string;
  /** The engine's credential for this run. */
  dynamoCredentials: EngineCredentials;
  token: string;
  teamId: string;
  tmbId: string;
  /** The throwaway server's admin key (a fresh one per run). */
  adminKey: string;
  /** Its DATA_DIR (credentials, the engine's credential file): the tokens tool works against it. */
  dataDir: string;
}

const dataDir = await mkdtemp(join(tmpdir(), 'kb-bench-server-'));
const backend = await startLocalBackend({ dataDir, dynamoPort: 0, persist: false });
const gateway = await startGateway(backend, {
  host: '127.0.0.1',
  port: 0,
  accessLog: (line) => process.stdout.write(`${line}\n`),
});
const [access] = backend.credentials.accessTokens;
if (!access) throw new Error('the local credentials have no access token');

const ready: LocalServerReady = {
  url: gateway.url,
  dynamoEndpoint: backend.dynamoEndpoint,
  dynamoCredentials: backend.dynamo.credentials,
  token: access.token,
  teamId: access.teamId,
  tmbId: access.tmbId,
  adminKey: backend.credentials.adminKey,
  dataDir,
};
process.send?.(ready);

process.once('disconnect', () => {
  Promise.all([gateway.close(), backend.close()])
    .finally(() => rm(dataDir, { recursive: true, force: true }))
    .finally(() => process.exit(0));
});
