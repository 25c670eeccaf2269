import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import { familyName, isLinkLocalAddress } from '#shared/address-rules';
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

  if (candidates.some(isLinkLocalAddress)) {
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
