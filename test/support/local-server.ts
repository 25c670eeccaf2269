import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type LocalBackend, startLocalBackend } from '#infra/local/backend';
import { type GatewayOptions, startGateway } from '#infra/local/gateway';
import type { LocalCredentials } from '#shared/local-credentials';

export interface TestServer {
  readonly url: string;
  readonly dataDir: string;
  readonly dynamoEndpoint: string;
  readonly credentialsFile: string;
  readonly credentials: LocalCredentials;
  close(): Promise<void>;
}

// Handlers read their environment once per module load (a cold start), so a test file has one
// backend (engine, tables, credentials) and may put several gateways in front of it.
let backend: Promise<{ backend: LocalBackend; dataDir: string }> | undefined;

function sharedBackend() {
  backend ??= (async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'kb-local-'));
    process.on('exit', () => rmSync(dataDir, { recursive: true, force: true }));
    const started = await startLocalBackend({ dataDir, dynamoPort: 0, persist: false });
    return { backend: started, dataDir };
  })();
  return backend;
}

/** Starts the local server (the real authorizer and handlers over an in-memory dynalite) on a random port. */
export async function startTestServer(options: Omit<GatewayOptions, 'host' | 'port'> = {}): Promise<TestServer> {
  const { backend: b, dataDir } = await sharedBackend();
  const gateway = await startGateway(b, { ...options, host: '127.0.0.1', port: 0 });
  return {
    url: gateway.url,
    dataDir,
    dynamoEndpoint: b.dynamoEndpoint,
    credentialsFile: b.credentialsFile,
    credentials: b.credentials,
    close: () => gateway.close(),
  };
}
