import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { sendControl } from '../../src/cli/control-commands.js';
import { RemoteFrontier } from '../../src/frontier/remote/remote-frontier.js';
import { encode } from '../../src/protocol/index.js';
import { RawClient } from '../helpers/raw-socket.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * The server runs the modules' site hooks once per site: one web server, an address and
 * a port, whatever host names it is reached by. Both ways a site is first visited are
 * tested: a bunny's CLAIMSITE and an original client's STOREURL.
 */

const SITETAG = `export default {
  name: 'sitetag',
  onSite(site, ctx) {
    if (site.origin.includes('bad')) throw new Error('a bad site');
    ctx.emit({ site: site.origin });
    return { seen: site.origin };
  },
};
`;

let dir: string;
let server: InProcessServer;

beforeEach(async () => {
  dir = mkdtempSync(join(tmpdir(), 'cobweb-site-hooks-'));
  const module = join(dir, 'sitetag.mjs');
  writeFileSync(module, SITETAG);
  server = await startTestServer({ dir: join(dir, 'server'), modules: [module] });
});

afterEach(async () => {
  await server.dispose();
  rmSync(dir, { recursive: true, force: true });
});

const emitted = () =>
  readFileSync(join(dir, 'server', 'data', 'sitetag.jsonl'), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { site: string });
const control = (type: 'SHOWDATA' | 'MODSTAT') =>
  sendControl({ host: '127.0.0.1', port: server.port }, { type }, undefined);

describe('site hooks on the server', () => {
  it('CLAIMSITE: two host names on one address:port are one site, claimed once, its hooks run once', async () => {
    const frontier = new RemoteFrontier({ host: '127.0.0.1', port: server.port, token: 'test-token' });
    try {
      const me = await frontier.registerCrawler('bunny');
      const facts = (address: string) => ({ address, headers: {}, robots: null });
      expect(await frontier.claimSite('http://a.test:8080', me, facts('127.0.0.9'))).toBe(true);
      expect(await frontier.claimSite('http://b.test:8080', me, facts('127.0.0.9'))).toBe(false);
      // another port, or another address, is another site
      expect(await frontier.claimSite('http://a.test:8081', me, facts('127.0.0.9'))).toBe(true);
      expect(await frontier.claimSite('http://c.test:8080', me, facts('127.0.0.10'))).toBe(true);
    } finally {
      await frontier.close();
    }
    expect(emitted().map((e) => e.site)).toEqual([
      'http://a.test:8080',
      'http://a.test:8081',
      'http://c.test:8080',
    ]);
  });

  it('STOREURL of an original client: a new site runs its hooks, once per address:port; MODSTAT counts calls and errors', async () => {
    const me = await server.store.registerCrawler('seeds');
    const urls = ['http://a.test:8080/', 'http://b.test:8080/x/', 'http://bad.test:8080/'];
    await server.store.add(
      urls.map((url) => ({ url, depth: 0, via: null })),
      [],
      me,
    );
    // a.test and b.test are one web server; bad.test is another, whose hook throws
    const addressOf: Record<string, [number, number, number, number]> = {
      'a.test': [127, 0, 0, 9],
      'b.test': [127, 0, 0, 9],
      'bad.test': [127, 0, 0, 11],
    };
    const c = await RawClient.connect(server.port);
    try {
      for (let i = 0; i < urls.length; i++) {
        const target = await c.dequeue();
        if (target === null) throw new Error('nothing dequeued');
        const addr = (addressOf[target.host] as number[]).join('.');
        c.send(encode({ type: 'STOREURL', target: { ...target, addr } }));
      }
      // the original packets of a connection are handled in order: once this is answered, all are done
      expect(await c.dequeue()).toBeNull();
    } finally {
      c.close();
    }
    // one run for the web server of a.test and b.test (by whichever came first), none kept for bad.test
    expect(emitted()).toHaveLength(1);
    expect(['http://a.test:8080', 'http://b.test:8080']).toContain(emitted()[0]?.site);
    const show = await control('SHOWDATA');
    if (show.kind !== 'text') throw new Error(show.message);
    expect(show.text).toMatch(/^sites: 2\n/);
    expect(show.text).toMatch(/127\.0\.0\.9:8080 {2}2 URLs {2}hosts: (a\.test, b\.test|b\.test, a\.test)\n/);
    expect(show.text).toContain(`"sitetag":{"seen":"${emitted()[0]?.site}"}`);
    expect(await control('MODSTAT')).toEqual({
      kind: 'text',
      text: expect.stringMatching(/^modules: 1\n {2}sitetag: 2 calls, 1 error, 0 timeouts, /),
    });
  });
});
