/**
 * The embedded DynamoDB engine's own process (forked by dynamo-engine.ts): dynalite gets a core to
 * itself, as DynamoDB is a separate service in AWS, instead of sharing the gateway's event loop.
 * Options come as JSON in argv[2]; the bound port goes back over IPC.
 */
import type { AddressInfo } from 'node:net';
import dynalite from 'dynalite';

const { host, port, path } = JSON.parse(process.argv[2] ?? '{}') as { host: string; port: number; path?: string };
// Table creation is instant locally; dynalite's default 500 ms per table only slows start-up.
const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });

server.once('error', (error: NodeJS.ErrnoException) => {
  process.send?.({ error: `${error.code ?? 'error'}: ${error.message}` });
  process.exit(1);
});
server.listen(port, host, () => {
  process.send?.({ port: (server.address() as AddressInfo).port });
});

const stop = () => server.close(() => process.exit(0));
process.on('SIGTERM', stop);
process.on('SIGINT', () => {
  // Ctrl-C reaches the whole process group; the parent decides when the engine stops.
});
// The parent went away (even by SIGKILL): never outlive it.
process.on('disconnect', stop);
