import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { sendControl } from '../../src/cli/control-commands.js';
import { ServerConnection } from '../../src/frontier/remote/connection.js';
import { BUILTIN_MODULES } from '../../src/modules/builtin/index.js';
import type { WireCompletion } from '../../src/protocol/index.js';
import { type InProcessServer, startTestServer } from '../helpers/server.js';

/**
 * What a bunny of any language meets at HELLO and COMPLETE: the server says which of its
 * modules' page hooks the bunny will not run (a bunny that cannot run JavaScript runs
 * none), and a COMPLETE for a lease id that is not one the bunny holds comes back in
 * `stale` spelled as it was sent.
 */

let server: InProcessServer | null = null;
const connections: ServerConnection[] = [];
let lines: { line: string; level: string | undefined }[] = [];

afterEach(async () => {
  for (const c of connections.splice(0)) c.close();
  await server?.dispose();
  server = null;
  lines = [];
});

async function started(modulesDir: string | null = null): Promise<InProcessServer> {
  server = await startTestServer({
    modules: [...BUILTIN_MODULES],
    modulesDir,
    log: (line, level) => lines.push({ line, level }),
  });
  return server;
}

function connect(
  s: InProcessServer,
  hello: { modules?: string[]; loadsModules?: boolean },
): ServerConnection {
  const c = new ServerConnection({ host: '127.0.0.1', port: s.port, name: 'py-bunny', ...hello });
  connections.push(c);
  return c;
}

const done = (lease: string): WireCompletion => ({
  lease,
  outcome: { kind: 'done' },
  report: { fetchMs: 1 },
  page: { url: 'http://127.0.0.2/', status: 200 },
  outlinks: [],
  rejected: [],
  modules: [],
});

describe('HELLO: the modules a bunny runs', { timeout: 30_000 }, () => {
  it('a bunny that runs no module is told which page hooks its pages go without, and the server logs it', async () => {
    const s = await started();
    const welcome = await connect(s, { modules: [], loadsModules: false }).open();
    expect(welcome.missingModules).toEqual(['forms', 'meta']);
    const warned = lines.filter((l) => l.level === 'warning' && l.line.includes('runs no page hook'));
    expect(warned).toHaveLength(1);
    expect(warned[0]?.line).toContain('forms, meta');
    expect(warned[0]?.line).toContain('data/meta.jsonl');
  });

  it('a bunny that runs the built-ins itself misses nothing, and nothing is said', async () => {
    const s = await started();
    const welcome = await connect(s, { modules: ['forms', 'meta', 'server'], loadsModules: true }).open();
    expect(welcome.missingModules).toEqual([]);
    expect(lines.filter((l) => l.line.includes('runs no page hook'))).toEqual([]);
  });

  it('one built-in run of its own: only the other is missing', async () => {
    const s = await started();
    const welcome = await connect(s, { modules: ['forms'] }).open();
    expect(welcome.missingModules).toEqual(['meta']);
  });
});

describe('loadmod and a bunny that loads no module', { timeout: 30_000 }, () => {
  it('is not sent the module, and the server says its pages go without it; a bunny that loads modules gets it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cobweb-hello-modules-'));
    try {
      writeFileSync(
        join(dir, 'tagger.mjs'),
        "export default { name: 'tagger', onPage: () => ({ tagged: true }) };\n",
      );
      const s = await started(dir);
      const plain = connect(s, { modules: ['forms', 'meta'], loadsModules: false });
      const loader = connect(s, { modules: ['forms', 'meta'], loadsModules: true });
      const pushed: { to: string; name: string }[] = [];
      plain.on('module', (m: { name: string }) => pushed.push({ to: 'plain', name: m.name }));
      loader.on('module', (m: { name: string }) => pushed.push({ to: 'loader', name: m.name }));
      await Promise.all([plain.open(), loader.open()]);
      const answer = await sendControl(
        { host: '127.0.0.1', port: s.port },
        { type: 'NEWMOD', name: 'tagger' },
        'test-token',
      );
      // Of the two bunnies, the one that loads modules got it.
      expect(answer).toMatchObject({ kind: 'text', text: expect.stringMatching(/sent to 1 bunny\n$/) });
      // A request after the push: the push, written first, has come by then.
      await Promise.all([plain.request('STATS', {}), loader.request('STATS', {})]);
      expect(pushed).toEqual([{ to: 'loader', name: 'tagger' }]);
      const warned = lines.filter(
        (l) => l.level === 'warning' && l.line.includes('runs no page hook of tagger'),
      );
      expect(warned).toHaveLength(1);
      // A bunny that connects after: told at once.
      const late = await connect(s, { modules: ['forms', 'meta'], loadsModules: false }).open();
      expect(late.missingModules).toEqual(['tagger']);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('COMPLETE: stale lease ids come back as sent', { timeout: 30_000 }, () => {
  it('ids that are none of ours, and a lease completed twice, are echoed exactly', async () => {
    const s = await started();
    const c = connect(s, { modules: ['forms', 'meta'] });
    await c.open();
    await c.request('ADD', { links: [{ url: 'http://127.0.0.2/', depth: 0, via: null }], rejected: [] });
    const leased = await c.request('LEASE', { n: 1, waitMs: 5000 });
    const id = leased.leases[0]?.id as string;
    expect(id).toMatch(/^\d+$/);
    const first = await c.request('COMPLETE', {
      completions: [done('bogus'), done(' 1064961'), done(id), done('L17')],
    });
    expect(first.stale).toEqual(['bogus', ' 1064961', 'L17']);
    const again = await c.request('COMPLETE', { completions: [done(id)] });
    expect(again.stale).toEqual([id]);
  });
});
