/** `npm run openapi`: regenerates openapi/<api>.json from the route table and the zod schemas. */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { DOCUMENT_FILES, documentText } from '#openapi/document';
import type { ApiName } from '#shared/routes';

const root = join(import.meta.dirname, '..');
for (const api of Object.keys(DOCUMENT_FILES) as ApiName[]) {
  writeFileSync(join(root, DOCUMENT_FILES[api]), documentText(api));
  process.stdout.write(`wrote ${DOCUMENT_FILES[api]}\n`);
}
