import { BlockList, isIP } from 'node:net';

/*
 * The one rule for addresses the product never connects to on a user's say-so (docs/channel-import.md, "DSN"):
 * link-local ranges hold the cloud metadata endpoints (169.254.169.254, 169.254.170.2, fe80::...). BlockList also
 * matches their IPv4-mapped forms (::ffff:169.254.x.x); the deprecated IPv4-compatible form, the NAT64 forms (RFC
 * 6052: a NAT64 gateway in the function's VPC, e.g. AWS's DNS64 with a NAT gateway, turns 64:ff9b::a9fe:a9fe into
 * 169.254.169.254) and the IPv6 EC2 metadata address (a ULA, not link-local) are listed by hand. Used by the import's
 * DSN targets and the relay's channel base URLs alike.
 */
// Built on first use: a function that never checks an address (the relay answering `GET /v1/models`) never builds them.
let blockLists: { linkLocal: BlockList; loopback: BlockList } | undefined;

function rules(): { linkLocal: BlockList; loopback: BlockList } {
  if (blockLists) return blockLists;
  const linkLocal = new BlockList();
  linkLocal.addSubnet('169.254.0.0', 16, 'ipv4');
  linkLocal.addSubnet('fe80::', 10, 'ipv6');
  linkLocal.addSubnet('::169.254.0.0', 112, 'ipv6');
  // The well-known prefix 64:ff9b::/96, and the local-use prefix 64:ff9b:1::/48 (RFC 8215) with the IPv4
  // address embedded as RFC 6052 does for a /48 prefix: its first 16 bits in the fourth group.
  linkLocal.addSubnet('64:ff9b::a9fe:0', 112, 'ipv6');
  linkLocal.addSubnet('64:ff9b:1:a9fe::', 64, 'ipv6');
  linkLocal.addAddress('fd00:ec2::254', 'ipv6');
  // SIIT's IPv4-translated form ::ffff:0:a.b.c.d (RFC 2765, RFC 6145): BlockList matches the mapped form only.
  linkLocal.addSubnet('::ffff:0:a9fe:0', 112, 'ipv6');

  // Loopback and the unspecified address, with their IPv4-mapped, IPv4-compatible and NAT64 forms: a channel's base
  // URL may not reach the function's own host (or, locally, the product's own engine) unless the operator lists it.
  const loopback = new BlockList();
  loopback.addSubnet('127.0.0.0', 8, 'ipv4');
  loopback.addSubnet('0.0.0.0', 8, 'ipv4');
  loopback.addAddress('::1', 'ipv6');
  loopback.addAddress('::', 'ipv6');
  loopback.addSubnet('::127.0.0.0', 104, 'ipv6');
  loopback.addSubnet('64:ff9b::7f00:0', 104, 'ipv6');
  loopback.addSubnet('64:ff9b:1:7f00::', 56, 'ipv6');
  loopback.addSubnet('::ffff:0:7f00:0', 104, 'ipv6');
  loopback.addSubnet('::ffff:0:0:0', 104, 'ipv6');
  blockLists = { linkLocal, loopback };
  return blockLists;
}

/*
 * A translator under the local-use prefix 64:ff9b:1::/48 (RFC 8215) may use any of RFC 6052's prefix lengths inside
 * it (/48, /56, /64, /96), with operator-chosen bits BlockList cannot express: each layout's IPv4 address is read out.
 */
const LOCAL_USE_LAYOUTS: readonly (readonly number[])[] = [
  [6, 7, 9, 10], // /48: bits 48..63, then 72..87 (bits 64..71 are the zero "u" octet)
  [7, 9, 10, 11], // /56
  [9, 10, 11, 12], // /64
  [12, 13, 14, 15], // /96
];

function embeddedIpv4s(address: string): string[] {
  const bytes = ipv6Bytes(address);
  if (bytes === undefined || bytes[0] !== 0 || bytes[1] !== 0x64 || bytes[2] !== 0xff || bytes[3] !== 0x9b) return [];
  if (bytes[4] !== 0 || bytes[5] !== 1) return [];
  return LOCAL_USE_LAYOUTS.map((at) => at.map((i) => bytes[i] ?? 0).join('.'));
}

/** The 16 bytes of an IPv6 address in text form (with or without an embedded dotted quad), or undefined. */
function ipv6Bytes(address: string): number[] | undefined {
  if (isIP(address) !== 6) return undefined;
  let text = address.replace(/%.*$/, '');
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const groups = (part: string) => (part === '' ? [] : part.split(':').map((g) => Number.parseInt(g, 16)));
  const front = groups(head);
  const back = tail === undefined ? [] : groups(tail);
  const all = [...front, ...Array<number>(8 - front.length - back.length).fill(0), ...back];
  return all.flatMap((g) => [g >> 8, g & 0xff]);
}

/** 'ipv4' or 'ipv6' for an IP address in text form. */
export function familyName(address: string): 'ipv4' | 'ipv6' {
  return isIP(address) === 4 ? 'ipv4' : 'ipv6';
}

/** True for a link-local or cloud-metadata address in any of its spellings: never a target. */
export function isLinkLocalAddress(address: string): boolean {
  const { linkLocal } = rules();
  if (embeddedIpv4s(address).some((v4) => linkLocal.check(v4, 'ipv4'))) return true;
  return linkLocal.check(address, familyName(address));
}

/** True for a loopback or unspecified address in any of its spellings. */
export function isLoopbackAddress(address: string): boolean {
  const { loopback } = rules();
  if (embeddedIpv4s(address).some((v4) => loopback.check(v4, 'ipv4'))) return true;
  return loopback.check(address, familyName(address));
}
