import { describe, expect, it } from 'vitest';
import { parseRetryAfter, retryDelay } from '../../src/bunny/retries.js';
import type { FetchFailure } from '../../src/fetch/types.js';

const failure = (error: FetchFailure['error'], message: string): FetchFailure => ({
  ok: false,
  url: 'http://a.test/',
  error,
  message,
  startedAt: new Date(),
  responseMs: 0,
  durationMs: 1,
});
const settings = { retries: 2, retryDelayMs: 100 };

describe('retryDelay', () => {
  it('retries transient failures with doubling waits, up to --retries', () => {
    const timeout = failure('timeout', 'no complete response within 1000 ms');
    expect([1, 2, 3].map((attempt) => retryDelay(timeout, attempt, settings, undefined))).toEqual([
      100,
      200,
      null,
    ]);
  });

  it('does not retry a name that does not exist, but does a resolver that did not answer', () => {
    expect(
      retryDelay(failure('dns', 'getaddrinfo ENOTFOUND nowhere.test'), 1, settings, undefined),
    ).toBeNull();
    expect(retryDelay(failure('dns', 'getaddrinfo EAI_AGAIN slow.test'), 1, settings, undefined)).toBe(100);
  });

  it('never retries what will not change: TLS, protocol, too-large, private addresses', () => {
    for (const e of ['tls', 'protocol', 'too-large', 'private-address'] as const) {
      expect(retryDelay(failure(e, 'x'), 1, settings, undefined)).toBeNull();
    }
  });

  it('waits what Retry-After asks, up to an hour; past that the answer is final', () => {
    expect(retryDelay(failure('reset', 'x'), 1, settings, 30_000)).toBe(30_000);
    expect(retryDelay(failure('reset', 'x'), 1, settings, 2 * 60 * 60_000)).toBeNull();
  });
});

describe('parseRetryAfter', () => {
  it('reads seconds and HTTP dates', () => {
    const now = Date.parse('Mon, 30 Nov 2026 12:00:00 GMT');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter('Mon, 30 Nov 2026 12:01:00 GMT', now)).toBe(60_000);
    expect(parseRetryAfter('Mon, 30 Nov 2026 11:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter('soon', now)).toBeUndefined();
    expect(parseRetryAfter(undefined, now)).toBeUndefined();
  });
});
