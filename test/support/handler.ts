import { vi } from 'vitest';

/**
 * Loads a function's module as a Lambda cold start would: a fresh module graph, with `env` set first
 * (an `undefined` value removes the variable). The variables stay stubbed until the file ends: the setup
 * file (test/support/setup.ts) unstubs them. Every handler test loads its handler this way.
 */
export async function loadHandler<M>(entry: string, env: Readonly<Record<string, string | undefined>>): Promise<M> {
  for (const [name, value] of Object.entries(env)) vi.stubEnv(name, value);
  vi.resetModules();
  return (await import(entry)) as M;
}

/** The create-dataset handler as a cold start on the table `datasetsTable`, with the built-in catalogue and logs off. */
export function loadCreateDatasetHandler(datasetsTable: string) {
  return loadHandler<typeof import('#functions/create-dataset/handler')>('#functions/create-dataset/handler', {
    DATASETS_TABLE: datasetsTable,
    MODEL_CATALOG: '',
    LOG_LEVEL: 'SILENT',
  });
}
