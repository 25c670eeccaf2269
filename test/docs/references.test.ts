import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
const SKIP = new Set(['node_modules', '.git', 'cdk.out', '.data', 'coverage']);

function filesUnder(dir: string, keep: (file: string) => boolean): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir).flatMap((name) => {
    if (SKIP.has(name)) return [];
    const path = join(dir, name);
    return statSync(path).isDirectory() ? filesUnder(path, keep) : keep(path) ? [path] : [];
  });
}

const DOCUMENTS = [
  join(ROOT, 'README.md'),
  join(ROOT, 'SECURITY.md'),
  ...filesUnder(join(ROOT, 'docs'), (f) => f.endsWith('.md')),
];
const SOURCES = ['functions', 'shared', 'infra', 'scripts', 'test'].flatMap((dir) =>
  filesUnder(join(ROOT, dir), (f) => f.endsWith('.ts')),
);

/** Relative link targets of a Markdown document: `[text](target)` and `![alt](target)`, anchors removed. */
function relativeLinks(markdown: string): string[] {
  // \x60 is a backtick (spelled so that the comment scanner below can read this file too).
  const withoutCode = markdown.replace(/\x60{3}[\s\S]*?\x60{3}/g, '').replace(/\x60[^\x60\n]*\x60/g, '');
  return [...withoutCode.matchAll(/\]\(\s*<?([^)\s>]+)>?(?:\s+\x22[^\x22]*\x22)?\s*\)/g)]
    .map((m) => m[1] ?? '')
    .filter((target) => !/^(?:[a-z][a-z0-9+.-]*:|#)/i.test(target))
    .map((target) => decodeURIComponent(target.split('#')[0] ?? ''));
}

/** The comment text of a TypeScript file: a small scanner that skips string and template literals. */
function comments(source: string): string {
  const out: string[] = [];
  let i = 0;
  while (i < source.length) {
    const c = source[i];
    const next = source[i + 1];
    if (c === '/' && next === '/') {
      const end = source.indexOf('\n', i);
      out.push(source.slice(i, end < 0 ? source.length : end));
      i = end < 0 ? source.length : end;
    } else if (c === '/' && next === '*') {
      const end = source.indexOf('*/', i + 2);
      out.push(source.slice(i, end < 0 ? source.length : end + 2));
      i = end < 0 ? source.length : end + 2;
    } else if (c === "'" || c === '"' || c === '`') {
      i += 1;
      while (i < source.length && source[i] !== c) i += source[i] === '\\' ? 2 : 1;
      i += 1;
    } else {
      i += 1;
    }
  }
  return out.join('\n');
}

describe('documentation references', () => {
  it('finds the documents it checks', () => {
    expect(DOCUMENTS.map((d) => relative(ROOT, d))).toEqual(expect.arrayContaining(['README.md', 'SECURITY.md']));
    expect(SOURCES.length).toBeGreaterThan(50);
  });

  it.each(DOCUMENTS.map((d) => [relative(ROOT, d), d]))(
    'every relative link of %s resolves to a file',
    (_name, doc) => {
      const broken = relativeLinks(readFileSync(doc, 'utf8')).filter(
        (target) => !existsSync(resolve(dirname(doc), target)),
      );
      expect(broken).toEqual([]);
    },
  );

  it('no source comment cites a document that is not in the repository', () => {
    const problems: string[] = [];
    for (const file of SOURCES) {
      const text = comments(readFileSync(file, 'utf8'));
      const name = relative(ROOT, file);
      for (const m of text.matchAll(/\bSPEC\b[^\n]{0,20}|\bAppendix [A-Z]\b|\.\.\/shared\/[\w./-]+/g)) {
        problems.push(`${name}: cites "${m[0].trim()}", which a reader of the repository cannot open`);
      }
      for (const m of text.matchAll(/\b((?:docs\/[\w./-]+|README|SECURITY)\.md)\b/g)) {
        const cited = m[1] ?? '';
        if (!existsSync(join(ROOT, cited))) problems.push(`${name}: cites ${cited}, which does not exist`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('no test name, message or other string cites the product spec either', () => {
    const problems: string[] = [];
    for (const file of SOURCES.filter((f) => f !== import.meta.filename)) {
      const text = readFileSync(file, 'utf8');
      for (const m of text.matchAll(/\bSPEC (?:\d|Appendix)[^\n]{0,12}|\bAppendix [A-Z]\b/g)) {
        problems.push(`${relative(ROOT, file)}: "${m[0]}"`);
      }
    }
    expect(problems).toEqual([]);
  });

  it('would report a citation of the product spec and a missing document', () => {
    const text = comments("const url = 'https://x/SPEC 1'; // see SPEC 2.2\n/* Appendix A and docs/missing.md */");

    expect(text).toBe('// see SPEC 2.2\n/* Appendix A and docs/missing.md */');
    expect(text.match(/\bAppendix [A-Z]\b/)).not.toBeNull();
    expect(existsSync(join(ROOT, 'docs/missing.md'))).toBe(false);
    expect(relativeLinks('[a](docs/x.md#part) [b](https://example.com) [c](#top) `[d](no.md)`')).toEqual(['docs/x.md']);
  });
});
