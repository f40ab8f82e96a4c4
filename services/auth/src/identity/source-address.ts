import { isIP } from 'node:net';

/** The eight 16-bit groups of a valid IPv6 address (`::` expanded, an IPv4 tail converted, a zone dropped). */
function ipv6Groups(address: string): number[] {
  let text = address.split('%')[0] ?? '';
  const lastColon = text.lastIndexOf(':');
  const tail = text.slice(lastColon + 1);
  if (tail.includes('.')) {
    const [a = 0, b = 0, c = 0, d = 0] = tail.split('.').map(Number);
    text = `${text.slice(0, lastColon + 1)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = '', rest] = text.split('::');
  const headGroups = head === '' ? [] : head.split(':');
  if (rest === undefined) return headGroups.map((group) => parseInt(group, 16));
  const restGroups = rest === '' ? [] : rest.split(':');
  const zeros = Array<string>(8 - headGroups.length - restGroups.length).fill('0');
  return [...headGroups, ...zeros, ...restGroups].map((group) => parseInt(group, 16));
}

/**
 * The bucket a caller's address is throttled in. IPv4 counts per address; an
 * IPv4-mapped IPv6 address counts as the IPv4 address it carries; other IPv6
 * addresses count per /64, the block one subscriber usually holds, so cycling
 * through the addresses of that block does not reset the count.
 */
export function sourceBucket(address: string): string {
  const family = isIP(address);
  if (family === 4) return address;
  if (family !== 6) throw new RangeError('not an IP address');
  const groups = ipv6Groups(address);
  const [g5 = 0, g6 = 0, g7 = 0] = groups.slice(5);
  if (groups.slice(0, 5).every((group) => group === 0) && g5 === 0xffff) {
    return [g6 >> 8, g6 & 0xff, g7 >> 8, g7 & 0xff].join('.');
  }
  return `${groups
    .slice(0, 4)
    .map((group) => group.toString(16))
    .join(':')}::/64`;
}
