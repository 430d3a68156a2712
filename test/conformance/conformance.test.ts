import { describe, expect, it } from 'vitest';
import { runConformance } from './run.js';

/**
 * The conformance run of docs/protocol.md ("Checking a bunny"), as `npm test` runs it:
 * `cobweb bunny` (the built command) and the Python client beside this file, each against
 * cobweb's own bunny on the conformance web. Spawns bin/cobweb.js: build first.
 */
describe('the conformance run', { timeout: 180_000 }, () => {
  it('cobweb bunny and a minimal Python bunny leave what cobweb’s own leaves, with nothing to report', async () => {
    const report = await runConformance([
      ['node', new URL('../../bin/cobweb.js', import.meta.url).pathname, 'bunny', '--quiet'],
      ['python3', new URL('minimal_bunny.py', import.meta.url).pathname],
    ]);
    // The web's every case is in the reference: pages, redirects, refusals, failures, /many/'s 300.
    expect(report.referenceLines).toBeGreaterThan(300);
    const [cli, python] = report.clients;
    expect(cli?.problems).toEqual([]);
    expect(python?.problems).toEqual([]);
    // The Python bunny runs no module, and the server says which ones its pages go without.
    expect(python?.notes.join('\n')).toMatch(/runs no page hook of forms, meta/);
    expect(cli?.notes.filter((n) => n.includes('runs no page hook'))).toEqual([]);
  });
});
