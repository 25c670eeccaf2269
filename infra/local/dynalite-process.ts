/**
 * The embedded DynamoDB engine's own process (forked by dynamo-engine.ts): dynalite gets a core to
 * itself, as DynamoDB is a separate service in AWS, instead of sharing the gateway's event loop.
 * Its options, credential included, come in the first IPC message (never in argv, which any local
 * user can read); the bound port goes back over IPC. dynalite's listener sits behind the engine's
 * guard (engine-guard.ts): no browser request, no request without this run's credential.
 */
import type { RequestListener, Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';
import { type EngineCredentials, guardEngine } from './engine-guard.ts';

interface EngineProcessOptions {
  host: string;
  port: number;
  path?: string;
  credentials: EngineCredentials;
}

// LevelDB creates its files with the process umask: owner-only, whatever the shell's umask.
process.umask(0o077);

let server: Server | undefined;

process.once('message', ({ host, port, path, credentials }: EngineProcessOptions) => {
  // Table creation is instant locally; dynalite's default 500 ms per table only slows start-up.
  const engine = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const [inner] = engine.listeners('request') as RequestListener[];
  if (!inner) throw new Error('dynalite has no request listener to guard');
  engine.removeAllListeners('request');
  engine.on('request', guardEngine(inner, credentials));
  server = engine;

  engine.once('error', (error: NodeJS.ErrnoException) => {
    process.send?.({ error: `${error.code ?? 'error'}: ${error.message}` });
    process.exit(1);
  });
  engine.listen(port, host, () => {
    process.send?.({ port: (engine.address() as AddressInfo).port });
  });
});

const stop = () => (server ? server.close(() => process.exit(0)) : process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', () => {
  // Ctrl-C reaches the whole process group; the parent decides when the engine stops.
});
// The parent went away (even by SIGKILL): never outlive it.
process.on('disconnect', stop);
