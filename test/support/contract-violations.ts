/**
 * Contract violations seen by the test server's response hook, waiting to fail the test that
 * caused them (test/support/setup.ts). Kept apart from the checker so the setup file stays
 * cheap for test files that start no server.
 */
const pending: string[] = [];

/** Records violations found in one response. */
export function recordContractViolations(violations: readonly string[]): void {
  pending.push(...violations);
}

/** Returns and forgets every recorded violation. */
export function takeContractViolations(): string[] {
  return pending.splice(0, pending.length);
}

/** Throws, listing them, when responses broke their contract since the last call. */
export function failOnContractViolations(): void {
  const violations = takeContractViolations();
  if (violations.length === 0) return;
  throw new Error(
    `${violations.length} response(s) did not match the OpenAPI document (openapi/*.json; fix the handler or the schema, then \`npm run openapi\`):\n${violations.map((v) => `  - ${v}`).join('\n')}`,
  );
}
