import { BlockList, isIP } from 'node:net';

/*
 * The one rule for addresses the product never connects to on a user's say-so (docs/channel-import.md, "DSN"):
 * link-local ranges hold the cloud metadata endpoints (169.254.169.254, 169.254.170.2, fe80::...). BlockList also
 * matches their IPv4-mapped forms (::ffff:169.254.x.x); the deprecated IPv4-compatible form, the NAT64 forms (RFC
 * 6052: a NAT64 gateway in the function's VPC, e.g. AWS's DNS64 with a NAT gateway, turns 64:ff9b::a9fe:a9fe into
 * 169.254.169.254) and the IPv6 EC2 metadata address (a ULA, not link-local) are listed by hand. Used by the import's
 * DSN targets and the relay's channel base URLs alike.
 */
const LINK_LOCAL = new BlockList();
LINK_LOCAL.addSubnet('169.254.0.0', 16, 'ipv4');
LINK_LOCAL.addSubnet('fe80::', 10, 'ipv6');
LINK_LOCAL.addSubnet('::169.254.0.0', 112, 'ipv6');
// The well-known prefix 64:ff9b::/96, and the local-use prefix 64:ff9b:1::/48 (RFC 8215) with the IPv4
// address embedded as RFC 6052 does for a /48 prefix: its first 16 bits in the fourth group.
LINK_LOCAL.addSubnet('64:ff9b::a9fe:0', 112, 'ipv6');
LINK_LOCAL.addSubnet('64:ff9b:1:a9fe::', 64, 'ipv6');
LINK_LOCAL.addAddress('fd00:ec2::254', 'ipv6');

// Loopback and the unspecified address, with their IPv4-mapped, IPv4-compatible and NAT64 forms: a channel's base URL
// may not reach the function's own host (or, locally, the product's own engine) unless the operator lists it.
const LOOPBACK = new BlockList();
LOOPBACK.addSubnet('127.0.0.0', 8, 'ipv4');
LOOPBACK.addSubnet('0.0.0.0', 8, 'ipv4');
LOOPBACK.addAddress('::1', 'ipv6');
LOOPBACK.addAddress('::', 'ipv6');
LOOPBACK.addSubnet('::127.0.0.0', 104, 'ipv6');
LOOPBACK.addSubnet('64:ff9b::7f00:0', 104, 'ipv6');
LOOPBACK.addSubnet('64:ff9b:1:7f00::', 56, 'ipv6');

/** 'ipv4' or 'ipv6' for an IP address in text form. */
export function familyName(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 4 ? 'ipv4' : 'ipv6';
}

/** True for a link-local or cloud-metadata address in any of its spellings: never a target. */
export function isLinkLocalAddress(address: string): boolean {
  return LINK_LOCAL.check(address, familyName(address));
}

/** True for a loopback or unspecified address in any of its spellings. */
export function isLoopbackAddress(address: string): boolean {
  return LOOPBACK.check(address, familyName(address));
}
