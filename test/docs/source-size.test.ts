import { readdirSync, readFileSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// docs/development.md: no source file over 400 lines, so a module stays one topic a reader can hold.
const ROOT = resolve(import.meta.dirname, '../..');
const SOURCES = ['functions', 'shared', 'infra', 'scripts', 'openapi'];
const MAX_LINES = 400;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(path);
    return /\.(ts|tsx)$/.test(entry.name) ? [path] : [];
  });
}

describe('source files', () => {
  it(`hold at most ${MAX_LINES} lines each`, () => {
    const files = SOURCES.flatMap((dir) => sourceFiles(join(ROOT, dir)));
    const lines = (path: string) => readFileSync(path, 'utf8').split('\n').length - 1;

    expect(files.length).toBeGreaterThan(200);
    expect(files.filter((f) => lines(f) > MAX_LINES).map((f) => `${relative(ROOT, f)}: ${lines(f)}`)).toEqual([]);
  });
});
