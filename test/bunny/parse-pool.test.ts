import { describe, expect, it } from 'vitest';
import { type LinkRulesSpec, linkRulesFrom } from '../../src/bunny/links.js';
import { ParsePool } from '../../src/bunny/parse-pool.js';
import type { PackedExchange } from '../../src/output/packed-exchange.js';

const spec: LinkRulesSpec = {
  filter: { scope: 'domain', seeds: ['https://site.test/'] },
  traps: { maxPathSegments: 20, maxSegmentRepeats: 2, maxQueryParams: 20 },
  maxDepth: 3,
  maxRedirects: 20,
};

/** A fetched page as the pool takes it: the body alone in its buffer. */
function packed(url: string, html: string): PackedExchange {
  const body = new TextEncoder().encode(html);
  const none = { offset: 0, length: 0 };
  const all = { offset: 0, length: body.length };
  return {
    url,
    date: new Date(0),
    remoteAddress: null,
    buffer: body.buffer as ArrayBuffer,
    requestHead: none,
    responseHead: none,
    rawBody: all,
    body: all,
  };
}

/** Enough HTML, parsed on the crawl's thread, for the pool to start its worker. */
const filler = `<title>Filler</title>${'<p>lorem ipsum dolor sit amet</p>'.repeat(3000)}`;

const input = (url: string) => ({
  url,
  contentType: 'text/html',
  depth: 0,
  firstTry: true,
  titleOnly: false,
});

describe('ParsePool', () => {
  it('parses a short crawl on its own thread, and hands later pages to a worker', async () => {
    const pool = new ParsePool({ threads: 1, rules: linkRulesFrom(spec), followNofollow: false });
    try {
      const first = await pool.analyze(input('https://site.test/'), packed('https://site.test/', filler));
      expect(first.title).toBe('Filler');
      expect(pool.inFlight).toBe(0);
      const url = 'https://site.test/late';
      const late = pool.analyze(
        input(url),
        packed(url, '<title>Late</title><a href="/next">next</a><a href="https://elsewhere.test/">x</a>'),
      );
      // Handed to the worker while it boots, not parsed here.
      expect(pool.inFlight).toBe(1);
      const analysis = await late;
      expect(analysis.title).toBe('Late');
      expect(analysis.accepted).toEqual(['https://site.test/next']);
      expect(analysis.rejected).toEqual([{ url: 'https://elsewhere.test/', reason: 'scope' }]);
    } finally {
      await pool.close();
    }
  });

  it('fails the pages of a worker that dies, saying so, rather than waiting for it', async () => {
    // The worker builds its rules from the spec, and this one breaks them there (no seeds).
    const broken = { ...spec, filter: { ...spec.filter, seeds: undefined as unknown as string[] } };
    const pool = new ParsePool({
      threads: 1,
      rules: { ...linkRulesFrom(spec), spec: broken },
      followNofollow: false,
    });
    try {
      await pool.analyze(input('https://site.test/'), packed('https://site.test/', filler));
      const url = 'https://site.test/late';
      await expect(pool.analyze(input(url), packed(url, '<title>Late</title>'))).rejects.toThrow(
        /the parse thread (failed|exited)/,
      );
    } finally {
      await pool.close();
    }
  });
});
