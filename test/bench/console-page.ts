import { gzipSync } from 'node:zlib';
import { buildConsolePage } from '#functions/console/build';
import { type Figure, figure } from './figures.ts';

/** The served document must stay under 60 KB gzipped (issue 19). */
const GZIP_TARGET_BYTES = 60 * 1024;

/**
 * Size of the console document as GET /console serves it: raw, and gzipped at zlib's default level
 * (what a CDN or browser-facing proxy would send). Its baseline is the bare HTML template.
 */
export function benchConsolePage(log: (line: string) => void): Figure[] {
  const { html } = buildConsolePage();
  const raw = Buffer.byteLength(html, 'utf8');
  const gzipped = gzipSync(html).length;
  log(`console page: ${raw} bytes, ${gzipped} bytes gzipped`);
  return [
    figure('console page: document size', raw, 'bytes'),
    figure('console page: gzipped size', gzipped, 'bytes', null, { of: 'value', max: GZIP_TARGET_BYTES }),
  ];
}
