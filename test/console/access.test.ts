import { describe, expect, it } from 'vitest';
import { type ConsoleAccess, hostAllowed, originAllowed } from '../../src/console/access.js';

/** The Host and Origin rules on their own: which names each listen address answers to. */

const on = (loopback: boolean, allowHosts: string[] = []): ConsoleAccess => ({
  tokenEverywhere: !loopback,
  loopback,
  allowHosts,
  metricsOpen: false,
});

describe('hostAllowed', () => {
  it('on loopback: the listen address and localhost, with or without a port; no other name', () => {
    const a = on(true);
    for (const host of ['127.0.0.1:8080', '127.0.0.1', 'localhost:8080', 'LOCALHOST', 'localhost.:8080']) {
      expect(hostAllowed(host, '127.0.0.1', a), host).toBe(true);
    }
    for (const host of ['evil.example:8080', '127.0.0.2:8080', 'localhost.evil.example', '', undefined]) {
      expect(hostAllowed(host, '127.0.0.1', a), String(host)).toBe(false);
    }
    expect(hostAllowed('[::1]:8080', '::1', a)).toBe(true);
    expect(hostAllowed('127.0.0.1:8080', 'localhost', a)).toBe(true);
  });

  it('on a wildcard address: any IP address of the machine, localhost, and the names given; no other name', () => {
    const a = on(false, ['crawler.internal']);
    for (const host of ['192.0.2.2:9464', '[fd00::2]:9464', 'localhost:9464', 'crawler.internal:9464']) {
      expect(hostAllowed(host, '0.0.0.0', a), host).toBe(true);
    }
    expect(hostAllowed('evil.example:9464', '0.0.0.0', a)).toBe(false);
  });

  it('on a network address: that address and the names given, not localhost', () => {
    const a = on(false, ['crawler.internal']);
    expect(hostAllowed('192.0.2.2:9464', '192.0.2.2', a)).toBe(true);
    expect(hostAllowed('crawler.internal', '192.0.2.2', a)).toBe(true);
    expect(hostAllowed('localhost:9464', '192.0.2.2', a)).toBe(false);
    expect(hostAllowed('192.0.2.3:9464', '192.0.2.2', a)).toBe(false);
  });
});

describe('originAllowed', () => {
  it("takes no Origin (a script) and the console's own; refuses another's, another port's, and null", () => {
    expect(originAllowed(undefined, '127.0.0.1:8080')).toBe(true);
    expect(originAllowed('http://127.0.0.1:8080', '127.0.0.1:8080')).toBe(true);
    expect(originAllowed('http://evil.example', '127.0.0.1:8080')).toBe(false);
    expect(originAllowed('http://127.0.0.1:9999', '127.0.0.1:8080')).toBe(false);
    expect(originAllowed('https://127.0.0.1:8080', '127.0.0.1:8080')).toBe(false);
    expect(originAllowed('null', '127.0.0.1:8080')).toBe(false);
  });
});
