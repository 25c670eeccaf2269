import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium, type Page, type Response } from 'playwright-core';

/** Debian's chromium; never a browser downloaded by a package. */
export const CHROMIUM_PATH = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

const INSTALL_HINT =
  `Browser tests need a system Chromium at ${CHROMIUM_PATH}: on Debian/Ubuntu apt-get install -y chromium ` +
  '(or set CHROMIUM_PATH to another Chromium binary).';

// Quiet and offline: no updater, sync, QUIC or other background traffic; a fresh profile per launch.
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

export interface TestBrowser {
  readonly context: BrowserContext;
  close(): Promise<void>;
}

/** Launches headless Chromium with a fresh user-data dir, removed on close. */
export async function launchBrowser(): Promise<TestBrowser> {
  if (!existsSync(CHROMIUM_PATH)) throw new Error(INSTALL_HINT);
  const userDataDir = mkdtempSync(join(tmpdir(), 'chromium-profile-'));
  try {
    const context = await chromium.launchPersistentContext(userDataDir, {
      executablePath: CHROMIUM_PATH,
      headless: true,
      chromiumSandbox: false,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    // Fail a missing element well within the test's own timeout, with playwright's message.
    context.setDefaultTimeout(10_000);
    return {
      context,
      close: async () => {
        await context.close();
        rmSync(userDataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    rmSync(userDataDir, { recursive: true, force: true });
    throw error;
  }
}

/** What a page did: every request URL, response body, console message, page error and CSP violation. */
export interface PageRecorder {
  readonly requests: string[];
  readonly consoleMessages: string[];
  readonly pageErrors: string[];
  readonly cspViolations: string[];
  /** Every response body received so far (awaits bodies still being read). */
  responseBodies(): Promise<string[]>;
}

/** Records what `page` does from now on; CSP violations come from the page's own securitypolicyviolation events. */
export async function recordPage(page: Page): Promise<PageRecorder> {
  const requests: string[] = [];
  const consoleMessages: string[] = [];
  const pageErrors: string[] = [];
  const cspViolations: string[] = [];
  const bodies: Promise<string>[] = [];
  page.on('request', (request) => requests.push(request.url()));
  page.on('response', (response: Response) => {
    bodies.push(response.text().catch(() => ''));
  });
  page.on('console', (message) => consoleMessages.push(`${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => pageErrors.push(error.message));
  await page.exposeFunction('__reportCspViolation', (violation: string) => cspViolations.push(violation));
  // Installed by the browser before any page script runs; CSP does not apply to it.
  await page.addInitScript(
    "document.addEventListener('securitypolicyviolation', (e) => window.__reportCspViolation(e.violatedDirective + ' ' + e.blockedURI));",
  );
  return {
    requests,
    consoleMessages,
    pageErrors,
    cspViolations,
    responseBodies: () => Promise.all(bodies),
  };
}

const require = createRequire(import.meta.url);
const AXE_SOURCE = readFileSync(require.resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  targets: string[];
}

/** Runs axe-core inside the page (WCAG 2.x A and AA rules and best practices) and returns its violations. */
export async function runAxe(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(AXE_SOURCE);
  return (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice'] } })
    .then((result) => result.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      targets: v.nodes.map((n) => n.target.join(' ')),
    })))`)) as AxeViolation[];
}

/**
 * Everything the page keeps where a secret must never be: the DOM (markup and the live values of
 * fields), localStorage, cookies and the URL. sessionStorage is returned apart: it is where the
 * admin key is meant to live.
 */
export async function pageStores(page: Page): Promise<{ places: Record<string, string>; sessionStorage: string }> {
  const snapshot = (await page.evaluate(`({
    dom: document.documentElement.outerHTML,
    fields: [...document.querySelectorAll('input, textarea, select')].map((e) => e.value).join('\\n'),
    localStorage: JSON.stringify({ ...localStorage }),
    sessionStorage: JSON.stringify({ ...sessionStorage }),
    url: location.href,
  })`)) as Record<string, string>;
  const cookies = JSON.stringify(await page.context().cookies());
  const { sessionStorage, ...places } = snapshot;
  return { places: { ...places, cookies }, sessionStorage: sessionStorage ?? '' };
}
