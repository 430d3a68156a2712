import { describe, expect, it } from 'vitest';
import { isPrivateAddress } from '../../src/fetch/ip-ranges.js';

/** Each range: its first and last address (private) and the neighbours just outside it (public), where those are not private themselves. */
const IPV4_RANGES: ReadonlyArray<[range: string, inside: string[], outside: string[]]> = [
  ['0.0.0.0/8', ['0.0.0.0', '0.255.255.255'], ['1.0.0.0']],
  ['10.0.0.0/8', ['10.0.0.0', '10.255.255.255'], ['9.255.255.255', '11.0.0.0']],
  ['100.64.0.0/10', ['100.64.0.0', '100.127.255.255'], ['100.63.255.255', '100.128.0.0']],
  ['127.0.0.0/8', ['127.0.0.0', '127.0.0.1', '127.255.255.255'], ['126.255.255.255', '128.0.0.0']],
  [
    '169.254.0.0/16',
    ['169.254.0.0', '169.254.169.254', '169.254.255.255'],
    ['169.253.255.255', '169.255.0.0'],
  ],
  ['172.16.0.0/12', ['172.16.0.0', '172.31.255.255'], ['172.15.255.255', '172.32.0.0']],
  ['192.0.0.0/24', ['192.0.0.0', '192.0.0.255'], ['191.255.255.255', '192.0.1.0']],
  ['192.0.2.0/24', ['192.0.2.0', '192.0.2.255'], ['192.0.1.255', '192.0.3.0']],
  ['192.168.0.0/16', ['192.168.0.0', '192.168.255.255'], ['192.167.255.255', '192.169.0.0']],
  ['198.18.0.0/15', ['198.18.0.0', '198.19.255.255'], ['198.17.255.255', '198.20.0.0']],
  ['198.51.100.0/24', ['198.51.100.0', '198.51.100.255'], ['198.51.99.255', '198.51.101.0']],
  ['203.0.113.0/24', ['203.0.113.0', '203.0.113.255'], ['203.0.112.255', '203.0.114.0']],
  ['224.0.0.0/4', ['224.0.0.0', '239.255.255.255'], ['223.255.255.255']],
  ['240.0.0.0/4', ['240.0.0.0', '255.255.255.254', '255.255.255.255'], []],
];

const IPV6_RANGES: ReadonlyArray<[range: string, inside: string[], outside: string[]]> = [
  ['::/96 (unspecified, loopback, IPv4-compatible)', ['::', '::1', '::ffff:ffff'], ['::1:0:0']],
  [
    '64:ff9b:1::/48',
    ['64:ff9b:1::', '64:ff9b:1:ffff:ffff:ffff:ffff:ffff'],
    ['64:ff9b:0:ffff::', '64:ff9b:2::'],
  ],
  [
    '100::/64',
    ['100::', '100::ffff:ffff:ffff:ffff'],
    ['ff:ffff:ffff:ffff:ffff:ffff:ffff:ffff', '100:0:0:1::'],
  ],
  [
    '2001:db8::/32',
    ['2001:db8::', '2001:db8:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['2001:db7:ffff::', '2001:db9::'],
  ],
  ['3fff::/20', ['3fff::', '3fff:fff:ffff:ffff:ffff:ffff:ffff:ffff'], ['3ffe:ffff::', '3fff:1000::']],
  [
    'fc00::/7',
    ['fc00::', 'fd12:3456::1', 'fdff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'],
    ['fbff:ffff::', 'fe00::'],
  ],
  ['fe80::/10', ['fe80::', 'febf:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], ['fe7f:ffff::']],
  ['fec0::/10', ['fec0::', 'feff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], []],
  ['ff00::/8', ['ff00::', 'ff02::1', 'ffff:ffff:ffff:ffff:ffff:ffff:ffff:ffff'], []],
];

describe('isPrivateAddress', () => {
  describe.each(IPV4_RANGES)('IPv4 %s', (_range, inside, outside) => {
    it.each(inside)('%s is private', (ip) => expect(isPrivateAddress(ip)).toBe(true));
    if (outside.length > 0)
      it.each(outside)('%s is public', (ip) => expect(isPrivateAddress(ip)).toBe(false));
  });

  describe.each(IPV6_RANGES)('IPv6 %s', (_range, inside, outside) => {
    it.each(inside)('%s is private', (ip) => expect(isPrivateAddress(ip)).toBe(true));
    if (outside.length > 0)
      it.each(outside)('%s is public', (ip) => expect(isPrivateAddress(ip)).toBe(false));
  });

  it.each(['8.8.8.8', '1.1.1.1', '93.184.215.14', '2606:4700:4700::1111', '2a00:1450:4001:82b::200e'])(
    'public address %s is not private',
    (ip) => expect(isPrivateAddress(ip)).toBe(false),
  );

  it.each([
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['::FFFF:169.254.169.254', true],
    ['::ffff:10.1.2.3', true],
    ['::ffff:8.8.8.8', false],
    ['64:ff9b::127.0.0.1', true],
    ['64:ff9b::a00:1', true],
    ['64:ff9b::8.8.8.8', false],
    ['2002:7f00:1::', true],
    ['2002:c0a8:101::1', true],
    ['2002:808:808::1', false],
  ])('judges %s by the IPv4 address inside it (private: %s)', (ip, expected) => {
    expect(isPrivateAddress(ip)).toBe(expected);
  });

  it.each([
    '::1',
    '0:0:0:0:0:0:0:1',
    '::0:1',
    '[::1]',
    'FE80::1',
    'fe80::1%eth0',
    'fe80:0:0:0:0:0:0:1',
    'FD00::ABCD',
  ])('reads the spelling %s', (ip) => expect(isPrivateAddress(ip)).toBe(true));

  it.each(['localhost', 'example.com', '', '1.2.3', '127.0.0.1.evil.test', '::g'])(
    'does not take the non-address %j for a private address (its addresses are judged instead)',
    (text) => expect(isPrivateAddress(text)).toBe(false),
  );
});
