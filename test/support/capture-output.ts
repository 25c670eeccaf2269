/** Collects everything written to stdout and stderr until `restore` is called (and keeps it off the console). */
export function captureOutput(): { text(): string; restore(): void } {
  const chunks: string[] = [];
  const originals = { out: process.stdout.write, err: process.stderr.write };
  const tap = ((chunk: unknown, ...rest: unknown[]) => {
    chunks.push(typeof chunk === 'string' ? chunk : Buffer.from(chunk as Uint8Array).toString('utf8'));
    const callback = rest.find((r) => typeof r === 'function') as (() => void) | undefined;
    callback?.();
    return true;
  }) as typeof process.stdout.write;
  process.stdout.write = tap;
  process.stderr.write = tap;
  return {
    text: () => chunks.join(''),
    restore() {
      process.stdout.write = originals.out;
      process.stderr.write = originals.err;
    },
  };
}
