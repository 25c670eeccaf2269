const CONSOLE_METHODS = ['log', 'info', 'warn', 'error', 'debug', 'trace'] as const;

/**
 * Collects everything written to stdout, stderr and the console until `restore` is called, and keeps it off
 * the test output. The one way tests read what a function logs.
 */
export function captureOutput(): { text(): string; restore(): void } {
  const chunks: string[] = [];
  const originals = {
    out: process.stdout.write,
    err: process.stderr.write,
    console: CONSOLE_METHODS.map((m) => [m, console[m]] as const),
  };
  const tap = ((chunk: unknown, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = tap;
  process.stderr.write = tap;
  for (const m of CONSOLE_METHODS) {
    console[m] = (...args: unknown[]) => {
      chunks.push(`${args.map(String).join(' ')}\n`);
    };
  }
  return {
    text: () => chunks.join(''),
    restore() {
      process.stdout.write = originals.out;
      process.stderr.write = originals.err;
      for (const [m, original] of originals.console) console[m] = original;
    },
  };
}
