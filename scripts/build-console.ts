/**
 * `tsx scripts/build-console.ts <dir>`: builds the console page into `<dir>/console-page.json`.
 * The console function's bundling runs it with the bundle's output directory (infra/stack.ts).
 */
import { writeConsolePage } from '#functions/console/build';

const dir = process.argv[2];
if (!dir) {
  process.stderr.write('usage: tsx scripts/build-console.ts <output dir>\n');
  process.exit(2);
}
writeConsolePage(dir);
