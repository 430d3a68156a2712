import { runConformance } from './run.js';

/**
 * `npm run conformance -- COMMAND...` (or `-- --client "COMMAND" --client ...` for several):
 * checks the bunny that COMMAND starts (the server's address, token and a data folder
 * appended as `--server HOST:PORT --token T --data DIR`) against cobweb's own, on the
 * conformance web. Without a command, it checks
 * `node bin/cobweb.js bunny` (build first) and the Python client kept beside this file.
 * Exits 0 when every client passes, 1 otherwise.
 */
const given = process.argv.slice(2);
const here = new URL('.', import.meta.url).pathname;
/** `--client "CMD ARGS" [--client ...]`: several clients, each one command line split at spaces. */
const clients = given[0] === '--client' ? given.filter((_, i) => given[i - 1] === '--client') : [];
const commands =
  clients.length > 0
    ? clients.map((c) => c.split(' ').filter((w) => w !== ''))
    : given.length > 0
      ? [given]
      : [
          ['node', new URL('../../bin/cobweb.js', import.meta.url).pathname, 'bunny', '--quiet'],
          ['python3', `${here}minimal_bunny.py`],
        ];
const report = await runConformance(commands);
console.log(`reference (cobweb's own bunny, in process): ${report.referenceLines} pages.jsonl lines`);
let failed = false;
for (const c of report.clients) {
  const verdict = c.problems.length === 0 ? 'passes' : `FAILS (${c.problems.length} problems)`;
  console.log(`\n${c.command.join(' ')}: ${verdict}, ${c.lines} lines, ${(c.ms / 1000).toFixed(1)} s`);
  for (const p of c.problems) console.log(`  - ${p}`);
  for (const n of c.notes) console.log(`  note: ${n}`);
  if (c.problems.length > 0) failed = true;
}
process.exitCode = failed ? 1 : 0;
