import { execFileSync } from 'node:child_process';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');

/** The paths among `paths` that git would ignore in this checkout (they need not exist). */
function ignored(paths: string[]): string[] {
  try {
    const out = execFileSync('git', ['check-ignore', '--no-index', ...paths], { cwd: ROOT, encoding: 'utf8' });
    return out.split('\n').filter(Boolean);
  } catch (error) {
    // Exit status 1: none of them is ignored.
    if ((error as { status?: number }).status === 1) return [];
    throw error;
  }
}

describe('files a deploy writes (docs/deploy.md)', () => {
  it('are ignored by git: the outputs file and the deploy folder of stage configs', () => {
    const written = ['cdk-outputs.json', 'deploy/prod.json', 'deploy/private-ca.pem', 'cdk.out/manifest.json'];

    expect(ignored(written)).toEqual(written);
  });

  it('leave the committed example and the docs tracked', () => {
    expect(ignored(['docs/stage-config.example.json', 'docs/deploy.md', 'infra/stack.ts'])).toEqual([]);
  });
});
