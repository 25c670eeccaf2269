/**
 * Floor of the console function: it uses no AWS SDK, so its floor is reading and parsing one JSON
 * file at module load, as its handler does with the built page.
 */
import { readFileSync } from 'node:fs';

export const page = JSON.parse(readFileSync(new URL('./console-page.json', import.meta.url), 'utf8')) as unknown;
