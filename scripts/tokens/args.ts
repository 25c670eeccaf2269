/** The command-line parsing both `npm run tokens` and `npm run tokens -- relay` share: one usage error, one exit code. */

import { type ParseArgsConfig, parseArgs } from 'node:util';
import * as z from 'zod';

/** A mistake in the arguments: exit code 2 with the usage text. */
export class UsageError extends Error {}

/** The value of `--<option>` checked by `schema`; a failure is a UsageError naming the option. */
export function validOption<T>(schema: z.core.$ZodType<T>, option: string, value: unknown): T {
  const parsed = z.safeParse(schema, value);
  if (!parsed.success) throw new UsageError(`--${option} ${parsed.error.issues[0]?.message ?? 'is invalid'}`);
  return parsed.data;
}

/** `parseArgs` in strict mode with positionals; its errors are UsageErrors. */
export function parseStrict<O extends NonNullable<ParseArgsConfig['options']>>(argv: string[], options: O) {
  try {
    return parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** Runs `parse`; a UsageError is written with the usage text and gives exit code 2. */
export function parsedOrUsage<T>(
  parse: () => T,
  deps: { stderr(line: string): void },
  usage: string,
): { ok: true; value: T } | { ok: false; exitCode: 2 } {
  try {
    return { ok: true, value: parse() };
  } catch (error) {
    if (!(error instanceof UsageError)) throw error;
    deps.stderr(`tokens: ${error.message}`);
    deps.stderr(usage);
    return { ok: false, exitCode: 2 };
  }
}
