import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { cruise, type IConfiguration } from 'dependency-cruiser';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(import.meta.dirname, '../..');
const SOURCES = ['functions', 'shared', 'infra', 'scripts', 'openapi'];

describe('the import graph', () => {
  it('has no circle among the sources, type-only imports included (dependency-cruiser)', async () => {
    const config = createRequire(import.meta.url)(resolve(ROOT, '.dependency-cruiser.cjs')) as IConfiguration;
    const previous = process.cwd();
    process.chdir(ROOT);
    try {
      const result = await cruise(SOURCES, {
        ...config.options,
        validate: true,
        ruleSet: { forbidden: config.forbidden },
      } as never);
      const output = result.output as {
        summary: { violations: { from: string; to: string; rule: { name: string } }[]; totalCruised: number };
      };

      // Sanity: the TypeScript sources were read (a parser that reads nothing finds no circle either).
      expect(output.summary.totalCruised).toBeGreaterThan(200);
      expect(output.summary.violations.map((v) => `${v.rule.name}: ${v.from} -> ${v.to}`)).toEqual([]);
    } finally {
      process.chdir(previous);
    }
  }, 60_000);
});
