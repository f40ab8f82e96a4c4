import { sourceBucket } from './source-address';

describe('sourceBucket', () => {
  it('keeps an IPv4 address as it is', () => {
    expect(sourceBucket('203.0.113.7')).toBe('203.0.113.7');
  });

  it('counts an IPv4-mapped IPv6 address as its IPv4 address', () => {
    expect(sourceBucket('::ffff:203.0.113.7')).toBe('203.0.113.7');
    expect(sourceBucket('::ffff:cb00:7107')).toBe('203.0.113.7');
  });

  it('puts every address of one IPv6 /64 in the same bucket', () => {
    const first = sourceBucket('2001:db8:aa:bb:1:2:3:4');
    expect(first).toBe('2001:db8:aa:bb::/64');
    expect(sourceBucket('2001:db8:aa:bb::ffff')).toBe(first);
    expect(sourceBucket('2001:0DB8:00AA:00BB:ffff:ffff:ffff:ffff')).toBe(first);
    expect(sourceBucket('2001:db8:aa:bc::1')).not.toBe(first);
  });

  it('expands compressed forms, zones and IPv4 tails', () => {
    expect(sourceBucket('::1')).toBe('0:0:0:0::/64');
    expect(sourceBucket('fe80::1%eth0')).toBe('fe80:0:0:0::/64');
    expect(sourceBucket('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/64');
  });

  it('rejects what is not an IP address', () => {
    expect(() => sourceBucket('localhost')).toThrow(RangeError);
  });
});
