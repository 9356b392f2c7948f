import { BlockList, isIP } from 'node:net';

/** What an address that is not on the public internet is, in words. */
export type NonPublicKind = 'loopback' | 'private' | 'link-local' | 'special-purpose';

/**
 * The address blocks of the IANA special-purpose registries (RFC 6890 and its updates) that are
 * not reachable on the public internet, by what they are. An address in none of them is public.
 */
const BLOCKS: Record<NonPublicKind, [string, number, 'ipv4' | 'ipv6'][]> = {
  loopback: [
    ['127.0.0.0', 8, 'ipv4'],
    ['::1', 128, 'ipv6'],
  ],
  private: [
    ['10.0.0.0', 8, 'ipv4'],
    ['172.16.0.0', 12, 'ipv4'],
    ['192.168.0.0', 16, 'ipv4'],
    ['100.64.0.0', 10, 'ipv4'], // shared address space (carrier-grade NAT), RFC 6598
    ['fc00::', 7, 'ipv6'], // unique local, RFC 4193
    ['fec0::', 10, 'ipv6'], // site-local, deprecated by RFC 3879 but still routed inside some networks
  ],
  'link-local': [
    ['169.254.0.0', 16, 'ipv4'], // where cloud metadata services answer
    ['fe80::', 10, 'ipv6'],
  ],
  'special-purpose': [
    ['0.0.0.0', 8, 'ipv4'], // "this network": 0.0.0.0 reaches the host itself
    ['192.0.0.0', 24, 'ipv4'],
    ['192.0.2.0', 24, 'ipv4'],
    ['192.88.99.0', 24, 'ipv4'],
    ['198.18.0.0', 15, 'ipv4'],
    ['198.51.100.0', 24, 'ipv4'],
    ['203.0.113.0', 24, 'ipv4'],
    ['224.0.0.0', 4, 'ipv4'], // multicast
    ['240.0.0.0', 4, 'ipv4'], // reserved, and the broadcast address
    ['::', 128, 'ipv6'],
    ['::', 96, 'ipv6'], // IPv4-compatible addresses, deprecated by RFC 4291
    ['64:ff9b:1::', 48, 'ipv6'], // local-use NAT64, RFC 8215
    ['100::', 64, 'ipv6'], // discard-only, RFC 6666
    ['2001::', 23, 'ipv6'],
    ['2001:db8::', 32, 'ipv6'],
    ['ff00::', 8, 'ipv6'], // multicast
  ],
};

const LISTS = Object.entries(BLOCKS).map(([kind, blocks]) => {
  const list = new BlockList();
  for (const [network, prefix, family] of blocks) list.addSubnet(network, prefix, family);
  return [kind as NonPublicKind, list] as const;
});

/**
 * What `address` (an IP address, IPv6 with or without brackets) is when it is not public;
 * `undefined` for a public address. An IPv4 address inside IPv6 (mapped `::ffff:a.b.c.d`, NAT64
 * `64:ff9b::/96`, 6to4 `2002::/16`) is judged as the IPv4 address it reaches.
 */
export function nonPublicKind(address: string): NonPublicKind | undefined {
  const bare = address.replace(/^\[(.*)\]$/, '$1');
  const family = isIP(bare);
  if (family === 0) return 'special-purpose';
  const embedded = family === 6 ? embeddedIPv4(bare) : undefined;
  if (embedded !== undefined) return nonPublicKind(embedded);
  const type = family === 4 ? 'ipv4' : 'ipv6';
  return LISTS.find(([, list]) => list.check(bare, type))?.[0];
}

/** The IPv4 address a mapped, NAT64 or 6to4 IPv6 address leads to. */
function embeddedIPv4(address: string): string | undefined {
  const groups = ipv6Groups(address);
  const quad = (high: number, low: number) => `${high >> 8}.${high & 0xff}.${low >> 8}.${low & 0xff}`;
  const zero = (from: number, to: number) => groups.slice(from, to).every((group) => group === 0);
  if (zero(0, 5) && groups[5] === 0xffff) return quad(groups[6]!, groups[7]!);
  if (groups[0] === 0x64 && groups[1] === 0xff9b && zero(2, 6)) return quad(groups[6]!, groups[7]!);
  if (groups[0] === 0x2002) return quad(groups[1]!, groups[2]!);
  return undefined;
}

/** The eight 16-bit groups of a valid IPv6 address. */
function ipv6Groups(address: string): number[] {
  let text = address.replace(/%.*$/, '');
  const dotted = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(text);
  if (dotted) {
    const [a, b, c, d] = dotted.slice(1).map(Number) as [number, number, number, number];
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', tail] = text.split('::');
  const parse = (part: string) =>
    part === '' ? [] : part.split(':').map((group) => Number.parseInt(group, 16));
  const first = parse(head);
  const last = tail === undefined ? [] : parse(tail);
  return [...first, ...Array(8 - first.length - last.length).fill(0), ...last];
}
