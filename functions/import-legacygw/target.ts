import { lookup as dnsLookup } from 'node:dns/promises';
import { BlockList, isIP } from 'node:net';
import type { AllowList } from '#shared/allow-list';
import { ENV } from '#shared/config';
import { ProxyApiError } from '#shared/errors';
import { normaliseHostName, unbracket } from '#shared/host-name';

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

// Link-local ranges hold the cloud metadata endpoints (169.254.169.254, 169.254.170.2, fe80::...). BlockList
// also matches their IPv4-mapped forms (::ffff:169.254.x.x); the deprecated IPv4-compatible form, the NAT64
// forms (RFC 6052: a NAT64 gateway in the function's VPC, e.g. AWS's DNS64 with a NAT gateway, turns
// 64:ff9b::a9fe:a9fe into 169.254.169.254) and the IPv6 EC2 metadata address (a ULA, not link-local) are
// listed by hand.
const REFUSED = new BlockList();
REFUSED.addSubnet('169.254.0.0', 16, 'ipv4');
REFUSED.addSubnet('fe80::', 10, 'ipv6');
REFUSED.addSubnet('::169.254.0.0', 112, 'ipv6');
// The well-known prefix 64:ff9b::/96, and the local-use prefix 64:ff9b:1::/48 (RFC 8215) with the IPv4
// address embedded as RFC 6052 does for a /48 prefix: its first 16 bits in the fourth group.
REFUSED.addSubnet('64:ff9b::a9fe:0', 112, 'ipv6');
REFUSED.addSubnet('64:ff9b:1:a9fe::', 64, 'ipv6');
REFUSED.addAddress('fd00:ec2::254', 'ipv6');

const defaultLookup: LookupFn = (hostname, options) => dnsLookup(hostname, options);

/**
 * Resolves `host` once, refuses link-local targets (also when a name resolves to one) and anything outside a
 * non-empty allow-list with ProxyApiError(400); a DNS failure is ProxyApiError(502). Connect to the returned
 * address, never to the name again, so the check and the connection see the same address.
 */
export async function resolveTarget(
  host: string,
  allowed: AllowList,
  lookup: LookupFn = defaultLookup,
): Promise<ResolvedTarget> {
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
    throw new ProxyApiError(400, `The database host is not in the allowed hosts (${ENV.legacygwAllowedHosts})`);
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
