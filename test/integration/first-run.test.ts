import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { stop, useNpmStart } from '#test/support/npm-start';

// docs/local-run.md, "First run": the credentials are printed by the first start that reaches "listening", even
// when an earlier start created them and then failed.

const npm = useNpmStart();

describe('the first run', () => {
  it('prints the credentials on the next start when the first one failed on a port in use after creating them', async () => {
    const dataDir = npm.newDataDir();
    const busy = createServer();
    busy.listen(0, '127.0.0.1');
    await once(busy, 'listening');
    const port = String((busy.address() as { port: number }).port);

    const failed = await npm.startFailing({ DATA_DIR: dataDir, PORT: port });
    busy.close();
    await once(busy, 'close');
    const { adminKey } = JSON.parse(readFileSync(join(dataDir, 'credentials.json'), 'utf8')) as { adminKey: string };
    const second = await npm.start({ DATA_DIR: dataDir, PORT: port });
    await stop(second.child);
    const third = await npm.start({ DATA_DIR: dataDir });

    expect(failed.code).toBe(1);
    expect(failed.output).toMatch(/npm start failed/);
    expect(failed.output).not.toContain(adminKey);
    expect(second.output()).toContain(`ADMIN_KEY=${adminKey}`);
    expect(second.output().indexOf('ADMIN_KEY=')).toBeLessThan(second.output().indexOf('listening on'));
    expect(third.output()).not.toContain(adminKey);
    expect(third.output()).toMatch(/Using local credentials in /);
  });
});
