// The scale benchmark's figures as markdown: one row per set-up, then each set-up's windows.
import type { LeaseLatency, OperationLatency } from './lease-latency.js';
import type { SetupResult } from './run-setup.js';

const MB = 2 ** 20;

function shortName(name: string): string {
  return name.replace(/^bunny /, 'b');
}

function ms(value: number): string {
  return Number.isFinite(value) ? (value < 1 ? value.toFixed(2) : value.toFixed(0)) : '>1000';
}

function latency(o: OperationLatency | undefined): string {
  return o === undefined ? '' : `${ms(o.p50Ms)}/${ms(o.p99Ms)}`;
}

/** p50/p99 of each crawling process, its leases that may long-poll in brackets. */
function leases(r: SetupResult): string {
  const parts = r.processes
    .filter((p): p is typeof p & { lease: LeaseLatency } => p.lease !== undefined)
    .map((p) => {
      const plain = latency(p.lease.lease);
      const wait = latency(p.lease.leaseWait);
      return `${shortName(p.name)} ${plain === '' ? '-' : plain}${wait === '' ? '' : ` (${wait})`}`;
    });
  return parts.length === 0 ? '-' : parts.join(', ');
}

function perProcess(r: SetupResult, value: (p: SetupResult['processes'][number]) => string): string {
  return r.processes.map((p) => `${shortName(p.name)} ${value(p)}`).join(', ');
}

export function resultTable(results: readonly SetupResult[]): string {
  const lines = [
    '| set-up | every reachable page fetched | pages fetched twice | gaps under the delay | robots.txt requests before expiry (hosts) | robots.txt per host: max (hosts asked twice or more) | seconds | pages/s | store on disk (MB) | lease p50/p99 ms (long-poll) | CPU s per 1,000 pages | peak RSS (MB) | web CPU s |',
    '|---|---|---|---|---|---|---|---|---|---|---|---|---|',
  ];
  for (const r of results) {
    const w = r.web;
    const pages = Math.max(1, w.fetched);
    const every = `${w.missing === 0 ? 'yes' : 'NO'} (${w.fetched} of ${w.reachable}${w.unexpected > 0 ? `, ${w.unexpected} not reachable` : ''})`;
    lines.push(
      `| ${[
        r.label + (r.failed === null ? '' : ' (FAILED)') + (r.timedOut ? ' (timed out)' : ''),
        every,
        String(w.twice),
        String(w.shortGaps),
        `${w.robotsEarly} (${w.robotsEarlyHosts})`,
        `${w.robotsMax} (${w.robotsRepeatedHosts} of ${w.robotsHosts})`,
        r.seconds.toFixed(1),
        (w.fetched / Math.max(r.seconds, 1e-3)).toFixed(0),
        (r.storeBytes / MB).toFixed(1),
        leases(r),
        perProcess(r, (p) => ((1000 * p.cpuSeconds) / pages).toFixed(2)) +
          (r.databaseCpuSeconds === undefined
            ? ''
            : `, database ${((1000 * r.databaseCpuSeconds) / pages).toFixed(2)}`),
        perProcess(r, (p) => (p.peakRssBytes / MB).toFixed(0)),
        r.webCpuSeconds.toFixed(1),
      ].join(' | ')} |`,
    );
  }
  return lines.join('\n');
}

export function windowTable(r: SetupResult): string {
  const names = r.processes.map((p) => p.name);
  // Heap columns only for the processes that served /metrics.
  const heaps = names.filter((n) => r.windows.some((w) => w.heap[n] !== undefined));
  const mb = (v: number | undefined) => (v === undefined ? '-' : (v / MB).toFixed(0));
  const lines = [
    `| ${r.label}: pages at window end | pages/s in the window | ${[
      ...names.map((n) => `RSS ${shortName(n)} (MB)`),
      ...heaps.map((n) => `heap used ${shortName(n)} (MB)`),
    ].join(' | ')} |`,
    `|---|---|${[...names, ...heaps].map(() => '---|').join('')}`,
  ];
  for (const w of r.windows) {
    const cells = [...names.map((n) => mb(w.rss[n])), ...heaps.map((n) => mb(w.heap[n]))];
    lines.push(`| ${w.pages} | ${w.pagesPerSecond.toFixed(0)} | ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

/** What the web saw that a reader needs to explain a failed column: examples. */
export function findings(r: SetupResult): string[] {
  const w = r.web;
  const out: string[] = [];
  if (r.failed !== null) out.push(`${r.label}: ${r.failed}`);
  if (w.missing > 0)
    out.push(`${r.label}: ${w.missing} reachable pages never fetched, e.g. ${w.missingExamples.join(' ')}`);
  if (w.unexpected > 0)
    out.push(
      `${r.label}: ${w.unexpected} pages fetched outside the reachable set, e.g. ${w.unexpectedExamples.join(' ')}`,
    );
  if (w.twice > 0) out.push(`${r.label}: ${w.twice} pages fetched twice, e.g. ${w.twiceExamples.join(' ')}`);
  if (w.shortGaps > 0) {
    const e = w.shortGapExamples.map((g) => `${g.host} ${g.gapMs} ms < ${g.requiredMs} ms`).join('; ');
    out.push(`${r.label}: ${w.shortGaps} gaps under the host's delay, e.g. ${e}`);
  }
  if (w.robotsEarly > 0) {
    out.push(
      `${r.label}: ${w.robotsEarly} robots.txt requests before the previous one expired, e.g. ${w.robotsEarlyExamples.join('; ')}`,
    );
  }
  const b = w.biggestHost;
  out.push(
    `${r.label}: statuses answered ${JSON.stringify(w.byStatus)}, ${w.requests} requests; the biggest host (${b.pages} pages) got ${b.requests} requests, ${b.meanGapMs} ms apart on average`,
  );
  return out;
}
