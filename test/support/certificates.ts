import { execFile } from 'node:child_process';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { ServerTls } from './mariadb.ts';

const run = promisify(execFile);

/** A throwaway CA and a server certificate for localhost / 127.0.0.1 in `into`, made with the openssl CLI. */
export async function makeTestCertificates(into: string): Promise<ServerTls> {
  const file = (name: string) => join(into, name);
  const openssl = async (args: string[]) => {
    try {
      await run('openssl', args, { cwd: into });
    } catch (e) {
      throw new Error(`The TLS tests need the openssl CLI (apt-get install -y openssl): ${(e as Error).message}`);
    }
  };
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  await openssl(['req', '-x509', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Test CA']);
  await openssl(['req', ...ec, '-keyout', 'server.key', '-out', 'server.csr', '-subj', '/CN=localhost']);
  await writeFile(file('san.ext'), 'subjectAltName=DNS:localhost,IP:127.0.0.1\n');
  await openssl([
    'x509',
    '-req',
    '-in',
    'server.csr',
    '-CA',
    'ca.pem',
    '-CAkey',
    'ca.key',
    '-CAcreateserial',
    '-out',
    'server.pem',
    '-days',
    '2',
    '-extfile',
    'san.ext',
  ]);
  return { certFile: file('server.pem'), keyFile: file('server.key'), caFile: file('ca.pem') };
}
