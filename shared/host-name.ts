/**
 * The one rule for a DNS host name, used wherever a host name is accepted (a DSN's host, an entry of the
 * import's allow-list): dot-separated labels of letters, digits, `-` and `_` (no leading or trailing `-`),
 * at most 63 characters each and 253 in all, an optional trailing dot, and a last label that is not
 * numeric (so `1.2.3.999` or `0x7f` can never pass as a name and reach the resolver).
 */
const LABEL = /^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$/;
const NUMERIC_LABEL = /^(?:\d+|0x[0-9a-f]*)$/i;

/** True when `host` is a valid host name by the rule above (case-insensitive). */
export function isHostName(host: string): boolean {
  const name = host.endsWith('.') ? host.slice(0, -1) : host;
  if (name.length === 0 || name.length > 253) return false;
  const labels = name.split('.');
  return labels.every((label) => LABEL.test(label)) && !NUMERIC_LABEL.test(labels.at(-1) ?? '');
}

/** The comparable form of a host name: lower case, without a trailing dot. */
export function normaliseHostName(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

/** `[::1]` → `::1`; anything else unchanged. */
export function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}
