import { existsSync, rmSync, writeFileSync } from 'node:fs';

/*
 * The local credentials are printed once, by the first start that reaches "listening" (docs/local-run.md, "First
 * run"). They are created early in a start, so a start that fails afterwards (a port in use: FastGPT itself uses
 * 3000) would otherwise have created them without ever showing them. A marker beside the file says they have not
 * been shown yet; the start that prints them removes it. A data directory from before the marker has none, and
 * its credentials stay unprinted as they were.
 */

const markerOf = (credentialsFile: string) => `${credentialsFile}.unprinted`;

/** Called before the credentials file may be created: when there is none yet, the next one is marked unprinted. */
export function markIfNewCredentials(credentialsFile: string): void {
  if (!existsSync(credentialsFile)) writeFileSync(markerOf(credentialsFile), '', { mode: 0o600 });
}

/** Whether the credentials in this file have not been printed by any start yet. */
export function credentialsUnprinted(credentialsFile: string): boolean {
  return existsSync(markerOf(credentialsFile));
}

/** After printing them: no later start prints them again. */
export function credentialsPrinted(credentialsFile: string): void {
  rmSync(markerOf(credentialsFile), { force: true });
}
