import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, afterEach } from 'vitest';

/**
 * `npm start` as a user runs it, for the tests about the local run itself: each test file that calls
 * `useNpmStart()` gets throwaway data directories and every program it spawned stopped after each test.
 */

const ROOT = resolve(import.meta.dirname, '../..');

export interface Started {
  child: ChildProcessWithoutNullStreams;
  url: string;
  output: () => string;
}

/**
 * The helpers of one test file (see the module comment). `stopAfter: 'file'` keeps each program until the
 * file ends, for a file whose tests share one `npm start` started in beforeAll.
 */
export function useNpmStart({ stopAfter = 'each' }: { stopAfter?: 'each' | 'file' } = {}) {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  // Every `npm start` a test spawns, stopped after the test even when an assertion failed.
  const running = new Set<ChildProcessWithoutNullStreams>();
  const stopAll = async () => {
    await Promise.all([...running].map((child) => stop(child, 'SIGKILL')));
  };
  if (stopAfter === 'each') afterEach(stopAll);
  else afterAll(stopAll);

  /** Spawns `npm start`'s program as a user would, in its own process group, with `env` on top of ours. */
  function spawnStart(env: NodeJS.ProcessEnv): { child: ChildProcessWithoutNullStreams; output: () => string } {
    const child = spawn(process.execPath, ['--import', 'tsx', 'infra/local/main.ts'], {
      cwd: ROOT,
      // The test chooses the engine: DYNAMODB_ENDPOINT of this run is not inherited.
      // The re-test timer is off in tests unless a test sets its interval.
      env: {
        ...process.env,
        DYNAMODB_ENDPOINT: '',
        PORT: '0',
        DYNAMODB_PORT: '0',
        LOG_LEVEL: 'WARN',
        RELAY_RETEST_INTERVAL_SECONDS: '0',
        ...env,
      },
      detached: true,
    });
    running.add(child);
    child.once('exit', () => running.delete(child));
    let output = '';
    child.stdout.on('data', (d) => {
      output += d;
    });
    child.stderr.on('data', (d) => {
      output += d;
    });
    return { child, output: () => output };
  }

  return {
    /** A new empty data directory, removed after the file. */
    newDataDir(): string {
      const dir = mkdtempSync(join(tmpdir(), 'kb-npm-start-'));
      dirs.push(dir);
      return dir;
    },

    /** Runs `npm start` and waits for its ready line. */
    async start(env: NodeJS.ProcessEnv): Promise<Started> {
      const { child, output } = spawnStart(env);
      const url = await new Promise<string>((resolvePromise, reject) => {
        const timer = setInterval(() => {
          const m = /listening on (http:\/\/\S+)/.exec(output());
          if (m?.[1]) {
            clearInterval(timer);
            resolvePromise(m[1]);
          }
        }, 50);
        child.once('exit', (code) => {
          clearInterval(timer);
          reject(new Error(`npm start exited with ${code}: ${output()}`));
        });
      });
      return { child, url, output };
    },

    /** Runs `npm start` that is expected to fail, and returns its exit code and output. */
    async startFailing(env: NodeJS.ProcessEnv): Promise<{ code: number | null; output: string }> {
      const { child, output } = spawnStart(env);
      const code = await new Promise<number | null>((r) => child.once('exit', (c) => r(c)));
      return { code, output: output() };
    },
  };
}

/** Signals the whole process group (the program and the engine it forked) and waits for the exit code. */
export async function stop(
  child: ChildProcessWithoutNullStreams,
  signal: NodeJS.Signals = 'SIGTERM',
): Promise<number | null> {
  if (child.exitCode !== null || child.signalCode !== null) return child.exitCode;
  const exited = new Promise<number | null>((r) => child.once('exit', (code) => r(code)));
  try {
    process.kill(-(child.pid as number), signal);
  } catch {
    child.kill(signal);
  }
  return exited;
}

/** The embedded engine's endpoint as `npm start` prints it. */
export function engineEndpoint(started: Started): string {
  const m = /embedded dynalite on (http:\/\/\S+?) /.exec(started.output());
  if (!m?.[1]) throw new Error(`npm start did not say where its engine listens: ${started.output()}`);
  return m[1];
}
