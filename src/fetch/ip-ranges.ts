import { isIP } from 'node:net';

/** An IPv4 network as [first address as an unsigned 32-bit number, prefix length]. */
type Ipv4Network = readonly [base: number, prefixLength: number];

/** An IPv6 network as [the eight 16-bit groups of its first address, prefix length]. */
type Ipv6Network = readonly [groups: readonly number[], prefixLength: number];

function ipv4ToNumber(ip: string): number {
  const parts = ip.split('.');
  return (
    ((Number(parts[0]) << 24) | (Number(parts[1]) << 16) | (Number(parts[2]) << 8) | Number(parts[3])) >>> 0
  );
}

function ipv4Network(cidr: string): Ipv4Network {
  const [address = '', prefix = '32'] = cidr.split('/');
  return [ipv4ToNumber(address), Number(prefix)];
}

/** Special-purpose IPv4 blocks (RFC 6890 and its updates) that are not the public internet. */
const PRIVATE_IPV4: readonly Ipv4Network[] = [
  '0.0.0.0/8', // "this network"; connecting to 0.0.0.0 reaches the local host on Linux
  '10.0.0.0/8',
  '100.64.0.0/10', // carrier-grade NAT
  '127.0.0.0/8',
  '169.254.0.0/16', // link-local, incl. the cloud metadata service 169.254.169.254
  '172.16.0.0/12',
  '192.0.0.0/24', // IETF protocol assignments
  '192.0.2.0/24', // TEST-NET-1
  '192.168.0.0/16',
  '198.18.0.0/15', // benchmarking
  '198.51.100.0/24', // TEST-NET-2
  '203.0.113.0/24', // TEST-NET-3
  '224.0.0.0/4', // multicast
  '240.0.0.0/4', // reserved, incl. the broadcast address 255.255.255.255
].map(ipv4Network);

function isPrivateIpv4Number(ip: number): boolean {
  for (const [base, prefixLength] of PRIVATE_IPV4) {
    // A shift by 32 is a shift by 0 in JavaScript, so /0 would need care; no /0 is listed.
    const shift = 32 - prefixLength;
    if (ip >>> shift === base >>> shift) return true;
  }
  return false;
}

/** The eight 16-bit groups of a valid IPv6 address (isIP has said so) without zone id; handles "::" and a dotted IPv4 tail. */
function ipv6Groups(ip: string): number[] {
  let text = ip;
  const lastColon = text.lastIndexOf(':');
  if (text.includes('.', lastColon)) {
    // "::ffff:127.0.0.1" -> "::ffff:7f00:1", so that only one spelling has to be parsed below.
    const v4 = ipv4ToNumber(text.slice(lastColon + 1));
    text = `${text.slice(0, lastColon + 1)}${(v4 >>> 16).toString(16)}:${(v4 & 0xffff).toString(16)}`;
  }
  const hex = (part: string) => Number.parseInt(part, 16);
  const gap = text.indexOf('::');
  if (gap === -1) return text.split(':').map(hex);
  const head = text.slice(0, gap);
  const rest = text.slice(gap + 2);
  const before = head === '' ? [] : head.split(':').map(hex);
  const after = rest === '' ? [] : rest.split(':').map(hex);
  return [...before, ...new Array<number>(8 - before.length - after.length).fill(0), ...after];
}

function ipv6Network(cidr: string): Ipv6Network {
  const [address = '', prefix = '128'] = cidr.split('/');
  return [ipv6Groups(address), Number(prefix)];
}

function inIpv6Network(groups: readonly number[], [base, prefixLength]: Ipv6Network): boolean {
  let bits = prefixLength;
  for (let i = 0; bits > 0; i++, bits -= 16) {
    const mask = bits >= 16 ? 0xffff : (0xffff << (16 - bits)) & 0xffff;
    if (((groups[i] ?? 0) & mask) !== ((base[i] ?? 0) & mask)) return false;
  }
  return true;
}

/** Special-purpose IPv6 blocks (RFC 6890 and its updates) that are not the public internet. */
const PRIVATE_IPV6: readonly Ipv6Network[] = [
  '::/96', // unspecified, loopback, and the deprecated IPv4-compatible form (routed nowhere public)
  '64:ff9b:1::/48', // local-use NAT64 (RFC 8215)
  '100::/64', // discard-only
  '2001:db8::/32', // documentation
  '3fff::/20', // documentation (RFC 9637)
  'fc00::/7', // unique local
  'fe80::/10', // link-local
  'fec0::/10', // site-local (deprecated, still private where used)
  'ff00::/8', // multicast
].map(ipv6Network);

/** Blocks that carry an IPv4 address inside: the IPv4 address decides, so ::ffff:127.0.0.1 is as private as 127.0.0.1. */
const IPV4_CARRIERS: ReadonlyArray<readonly [network: Ipv6Network, firstGroup: number]> = [
  [ipv6Network('::ffff:0:0/96'), 6], // IPv4-mapped
  [ipv6Network('64:ff9b::/96'), 6], // NAT64 well-known prefix
  [ipv6Network('2002::/16'), 1], // 6to4: the gateway's IPv4 address follows the prefix
];

function isPrivateIpv6(ip: string): boolean {
  const groups = ipv6Groups(ip);
  for (const [network, firstGroup] of IPV4_CARRIERS) {
    if (inIpv6Network(groups, network)) {
      const embedded = (((groups[firstGroup] ?? 0) << 16) | (groups[firstGroup + 1] ?? 0)) >>> 0;
      return isPrivateIpv4Number(embedded);
    }
  }
  return PRIVATE_IPV6.some((network) => inIpv6Network(groups, network));
}

/**
 * Loopback, private, link-local, unique-local, multicast, unspecified, and the like: addresses a crawler of
 * the public web must not reach. Accepts any IPv6 spelling (compressed, uppercase, dotted tail, zone id,
 * brackets). A string that is not an IP address is not a private address: it is a name, which must be
 * resolved and its addresses judged.
 */
export function isPrivateAddress(ip: string): boolean {
  let address = ip;
  if (address.startsWith('[') && address.endsWith(']')) address = address.slice(1, -1);
  const zone = address.indexOf('%');
  if (zone !== -1) address = address.slice(0, zone);
  switch (isIP(address)) {
    case 4:
      return isPrivateIpv4Number(ipv4ToNumber(address));
    case 6:
      return isPrivateIpv6(address);
    default:
      return false;
  }
}
