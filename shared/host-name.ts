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

// Four decimal octets, 0-255 each, without leading zeros (as node:net's isIPv4 reads them). A literal,
// so a bundle that never checks an address drops it.
const IPV4 = /^(?:(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)\.){3}(?:25[0-5]|2[0-4]\d|1\d\d|[1-9]\d|\d)$/;
const HEX_GROUP = /^[0-9A-Fa-f]{1,4}$/;

/**
 * True for a dotted-quad IPv4 address, as `isIPv4` of `node:net` decides. Written here so a function
 * that only checks an address (openapi) does not load `node:net` at cold start for it (about 1 ms).
 */
export function isIPv4Address(text: string): boolean {
  return IPV4.test(text);
}

/**
 * True for an IPv6 address in text form (RFC 4291 2.2: eight groups of 1-4 hex digits, one `::` for a
 * run of zero groups, the last 32 bits optionally as a dotted quad), as `isIPv6` of `node:net` decides
 * for text without a zone index (`%eth0`, which this refuses). test/unit/host-name.test.ts compares
 * the two over many generated strings.
 */
export function isIPv6Address(text: string): boolean {
  const halves = text.split('::');
  if (halves.length > 2) return false;
  const groups = halves.flatMap((half) => (half === '' ? [] : half.split(':')));
  const last = groups.length - 1;
  let bits = 0;
  for (const [i, group] of groups.entries()) {
    // A dotted quad only ends the address: not before a `::` that closes it.
    if (i === last && !text.endsWith('::') && IPV4.test(group)) bits += 32;
    else if (HEX_GROUP.test(group)) bits += 16;
    else return false;
  }
  return halves.length === 2 ? bits <= 112 : bits === 128;
}
