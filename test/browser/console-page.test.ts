/**
 * GET /console in a real browser (Debian's Chromium, headless, driven by playwright-core) against the
 * local server: the response headers, the policy holding in the browser, and accessibility.
 */
import { describe, expect, it } from 'vitest';
import { recordPage } from '#test/support/browser';
import { expectCleanRun, expectNoSecretsKept, seriousA11yViolations, useConsoleWorld } from './console.helpers.ts';

const files = useConsoleWorld();
const { world } = files;

describe('GET /console in Chromium', () => {
  it('is served with the policy, nosniff, no referrer and an HTML type, and runs with no CSP violation and no other request', async () => {
    const page = await files.newPage();
    const recorder = await recordPage(page);

    const response = await page.goto(`${world.server.url}/console`);

    const headers = response?.headers() ?? {};
    expect(response?.status()).toBe(200);
    expect(headers['content-type']).toBe('text/html; charset=utf-8');
    expect(headers['content-security-policy']).toMatch(
      /^default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]{43}=' 'wasm-unsafe-eval'; style-src 'sha256-[A-Za-z0-9+/]{43}='; connect-src 'self'; worker-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'$/,
    );
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('no-referrer');
    await expect(page.getByRole('heading', { name: 'Channel import console' }).isVisible()).resolves.toBe(true);
    expectCleanRun(world, recorder);
    expect(recorder.requests).toEqual([`${world.server.url}/console`]);
  });

  it("lets WebAssembly compile, for SQLite, but still refuses JavaScript's eval and a worker that is not of its origin", async () => {
    const { page, recorder } = await files.open();

    const outcome = await page.evaluate(`(async () => {
      const wasm = await WebAssembly.compile(new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0])).then(() => 'compiled', (e) => e.name);
      let evaluated;
      try { eval('1'); evaluated = 'ran'; } catch (e) { evaluated = e.name; }
      let blobWorker;
      try { new Worker(URL.createObjectURL(new Blob(['postMessage(1)'], { type: 'text/javascript' }))); blobWorker = 'started'; }
      catch (e) { blobWorker = e.name; }
      return { wasm, evaluated, blobWorker };
    })()`);

    // The blob worker is refused when it loads: the policy reports it under worker-src.
    expect(outcome).toEqual({ wasm: 'compiled', evaluated: 'EvalError', blobWorker: 'started' });
    await expect.poll(() => recorder.cspViolations.some((v) => v.startsWith('worker-src blob'))).toBe(true);
    expect(recorder.cspViolations.filter((v) => !/^(worker-src|script-src)/.test(v))).toEqual([]);
  });

  it('reports a CSP violation when something outside the policy runs (the detector works)', async () => {
    const { page, recorder } = await files.open();

    await page.evaluate("document.head.append(Object.assign(document.createElement('style'), { textContent: 'p{}' }))");
    await page.waitForFunction('true');

    await expect.poll(() => recorder.cspViolations.some((v) => v.startsWith('style-src'))).toBe(true);
  });

  it('has no serious or critical accessibility violation on the first screen, runs clean and keeps nothing', async () => {
    const { page, recorder } = await files.open();

    const violations = await seriousA11yViolations(page);

    expect(violations).toEqual([]);
    expectCleanRun(world, recorder);
    await expectNoSecretsKept(world, page, recorder);
  });
});
