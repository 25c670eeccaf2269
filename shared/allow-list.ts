import { BlockList, isIP } from 'node:net';
import { ConfigError } from './errors.ts';
import { isHostName, normaliseHostName, unbracket } from './host-name.ts';

/** The operator's allow-list (the import's LEGACYGW_ALLOWED_HOSTS), validated. Empty means any non-link-local target. */
export interface AllowList {
  readonly isEmpty: boolean;
  /** Host names, lower case, without a trailing dot. */
  readonly hostNames: ReadonlySet<string>;
  /** IP addresses and CIDRs. BlockList is only a matcher here; it also matches IPv4-mapped IPv6 forms. */
  readonly networks: BlockList;
}

/** Validates allow-list entries (host names, IP addresses, CIDRs) at cold start; throws ConfigError naming a bad entry (the caller names the setting). */
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
    if (!isHostName(name)) {
      throw new ConfigError(`entry "${entry}" is not a host name, an IP address or a CIDR`);
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
    throw new ConfigError(`entry "${entry}" is not a valid CIDR`);
  }
  networks.addSubnet(address, prefix, family === 4 ? 'ipv4' : 'ipv6');
}

/** No allow-list: any target that is not link-local. */
// Marked pure so a bundle that never reads it (every function but the import) drops it, and `node:net` with it.
export const ANY_HOST: AllowList = /* @__PURE__ */ parseAllowList([]);
