import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import { ConfigError, ProxyApiError } from '#shared/errors';

/** The address the import connects to, already checked. */
export interface ResolvedTarget {
  address: string;
  family: 4 | 6;
}

/** The shape of `lookup` from node:dns/promises called with `{ all: true }`; injectable for tests. */
export type LookupFn = (
  hostname: string,
  options: { all: true },
) => Promise<ReadonlyArray<{ address: string; family: number }>>;

/** The operator's allow-list (LEGACYGW_ALLOWED_HOSTS), validated. Empty means any non-link-local target. */
export interface AllowList {
  readonly isEmpty: boolean;
  /** Host names, lower case, without a trailing dot. */
  readonly hostNames: ReadonlySet<string>;
  /** IP addresses and CIDRs. BlockList is only a matcher here; it also matches IPv4-mapped IPv6 forms. */
  readonly networks: BlockList;
}

// Link-local ranges hold the cloud metadata endpoints (169.254.169.254, 169.254.170.2, fe80::...). BlockList
// also matches their IPv4-mapped forms (::ffff:169.254.x.x); the deprecated IPv4-compatible form and the
// IPv6 EC2 metadata address (a ULA, not link-local) are listed by hand.
const REFUSED = new BlockList();
REFUSED.addSubnet('169.254.0.0', 16, 'ipv4');
REFUSED.addSubnet('fe80::', 10, 'ipv6');
REFUSED.addSubnet('::169.254.0.0', 112, 'ipv6');
REFUSED.addAddress('fd00:ec2::254', 'ipv6');

const HOST_NAME = /^[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?(?:\.[a-z0-9_](?:[a-z0-9_-]{0,61}[a-z0-9_])?)*$/;

const defaultLookup: LookupFn = (hostname, options) => dnsLookup(hostname, options);

/** Validates allow-list entries (host names, IP addresses, CIDRs) at cold start; throws ConfigError naming a bad entry. */
export function parseAllowList(entries: readonly string[]): AllowList {
  const hostNames = new Set<string>();
  const networks = new BlockList();
  for (const raw of entries) {
    const entry = raw.trim();
    if (entry === '') continue;
    const slash = entry.indexOf('/');
    if (slash >= 0) {
      addCidr(networks, entry, entry.slice(0, slash), entry.slice(slash + 1));
      continue;
    }
    const ip = unbracket(entry);
    const family = isIP(ip);
    if (family !== 0 && !ip.includes('%')) {
      networks.addAddress(ip, family === 4 ? 'ipv4' : 'ipv6');
      continue;
    }
    const name = normaliseHostName(entry);
    if (!HOST_NAME.test(name) || name.length > 253) {
      throw new ConfigError(`LEGACYGW_ALLOWED_HOSTS entry "${entry}" is not a host name, an IP address or a CIDR`);
    }
    hostNames.add(name);
  }
  return Object.freeze({ isEmpty: hostNames.size === 0 && networks.rules.length === 0, hostNames, networks });
}

function addCidr(networks: BlockList, entry: string, address: string, prefixText: string): void {
  const family = isIP(address);
  const max = family === 4 ? 32 : 128;
  const prefix = /^\d{1,3}$/.test(prefixText) ? Number(prefixText) : Number.NaN;
  if (family === 0 || address.includes('%') || !(prefix >= 0 && prefix <= max)) {
    throw new ConfigError(`LEGACYGW_ALLOWED_HOSTS entry "${entry}" is not a valid CIDR`);
  }
  networks.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
}

/**
 * Resolves `host` once, refuses link-local targets (also when a name resolves to one) and anything outside a
 * non-empty allow-list with ProxyApiError(400); a DNS failure is ProxyApiError(502). Connect to the returned
 * address, never to the name again, so the check and the connection see the same address.
 */
export async function resolveTarget(
  host: string,
  allowList: AllowList | readonly string[],
  lookup: LookupFn = defaultLookup,
): Promise<ResolvedTarget> {
  const allowed = isAllowList(allowList) ? allowList : parseAllowList(allowList);
  const literal = unbracket(host);
  const candidates = isIP(literal) !== 0 ? [literal] : await resolve(host, lookup);

  if (candidates.some(isRefused)) {
    throw new ProxyApiError(
      400,
      'The database host is refused: link-local addresses (169.254.0.0/16, fe80::/10) are never allowed',
    );
  }
  const nameAllowed = allowed.isEmpty || allowed.hostNames.has(normaliseHostName(host));
  const address = candidates.find((a) => nameAllowed || allowed.networks.check(a, familyName(a)));
  if (address === undefined) {
    throw new ProxyApiError(400, 'The database host is not in the allowed hosts (LEGACYGW_ALLOWED_HOSTS)');
  }
  return { address, family: isIP(address) === 4 ? 4 : 6 };
}

async function resolve(host: string, lookup: LookupFn): Promise<string[]> {
  let answers: ReadonlyArray<{ address: string }>;
  try {
    answers = await lookup(host, { all: true });
  } catch (cause) {
    throw new ProxyApiError(502, 'The database host name could not be resolved', { cause });
  }
  const addresses = answers.map((a) => a.address).filter((a) => isIP(a) !== 0);
  if (addresses.length === 0) throw new ProxyApiError(502, 'The database host name could not be resolved');
  return addresses;
}

function isRefused(address: string): boolean {
  return REFUSED.check(address, familyName(address));
}

function familyName(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 4 ? 'ipv4' : 'ipv6';
}

function unbracket(host: string): string {
  return host.startsWith('[') && host.endsWith(']') ? host.slice(1, -1) : host;
}

function normaliseHostName(host: string): string {
  const lower = host.toLowerCase();
  return lower.endsWith('.') ? lower.slice(0, -1) : lower;
}

function isAllowList(value: AllowList | readonly string[]): value is AllowList {
  return !Array.isArray(value);
}
