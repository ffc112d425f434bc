/** The audit log keeps the network a write came from, not the address: IPv4 /24, IPv6 /48. */
import { describe, expect, it } from 'vitest';
import { actorName, sourceNetwork } from '../../lambdas/domain/audit-entry';

describe('sourceNetwork', () => {
  it.each([
    ['203.0.113.77', '203.0.113.0/24'],
    ['::ffff:198.51.100.9', '198.51.100.0/24'],
    ['2001:db8:abcd:12::1', '2001:db8:abcd::/48'],
    ['2001:0db8:0001:ffff:0:0:0:1', '2001:db8:1::/48'],
    ['2001:db8::1', '2001:db8:0::/48'],
    ['::1', '0:0:0::/48'],
    ['not an address', null],
    [undefined, null],
  ])('%s is kept as %s', (ip, network) => {
    expect(sourceNetwork(ip)).toBe(network);
  });
});

describe('actorName', () => {
  it('names a person by email, else subject; the admin token as "admin token"', () => {
    expect(actorName({ via: 'sign-in', subject: 's1', email: 'a@example.com' })).toBe('a@example.com');
    expect(actorName({ via: 'sign-in', subject: 's1' })).toBe('s1');
    expect(actorName({ via: 'admin-token' })).toBe('admin token');
  });
});
