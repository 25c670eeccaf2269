import type { ImportDeps } from '#functions/import-legacygw/import-legacygw';
import { proxyErrorResponse } from '#shared/envelopes/proxy';
import { captureOutput } from '#test/support/capture-output';
import { runImport, testLogger } from './import.helpers.ts';

/** The answer to a MySQL server that sends more at once than the import accepts (a packet over its bound). */
export const TOO_MUCH_AT_ONCE = {
  status: 502,
  body: {
    success: false,
    message: 'Could not read from the MySQL server: it sent more data at once than the import accepts',
  },
} as const;

/**
 * Imports from `dsn` and answers as the import function does: the answer's status and parsed body, and all the
 * import logged (at DEBUG) meanwhile.
 */
export async function importAnswer(
  dsn: string,
  deps: ImportDeps,
): Promise<{ answer: { status: number; body: unknown }; logged: string }> {
  const output = captureOutput();
  try {
    const result = await runImport(dsn, deps);
    const response = proxyErrorResponse(!result.ok && result.error, testLogger('DEBUG'));
    return { answer: { status: response.statusCode, body: JSON.parse(response.body) }, logged: output.text() };
  } finally {
    output.restore();
  }
}
