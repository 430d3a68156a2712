import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';
import type { StoreCall } from '../frontier/timed.js';
import type { ModuleStats } from '../modules/api.js';
import type { PageRecord } from '../output/pages-log.js';
import type { LineStats } from './line-stats.js';
import type { SourceSnapshot } from './types.js';

/** Seconds: from a fast local answer to the --timeout default. */
const FETCH_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
const STORE_BUCKETS = [0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 1];

type Labels = Record<string, string>;
/** A metric's series as read from the snapshot: labels and value. */
type Series = [Labels, number][];

const byLabel = (label: string, counts: Record<string, number>): Series =>
  Object.entries(counts).map(([k, v]) => [{ [label]: k }, v]);
const one = (v: number): Series => [[{}, v]];

/**
 * The registry behind `/metrics` (docs/operations.md lists every metric). Counters of
 * pages come from the pages.jsonl lines, the rest from the source's snapshot, read once
 * per scrape: `render()` takes the snapshot, then every metric's collect() reads it.
 * Prometheus's process and Node.js metrics (CPU, memory, event loop) come with them.
 */
export class Metrics {
  readonly registry = new Registry();
  private snapshot: SourceSnapshot | null = null;
  private pendingMs: number[] = [];
  private readonly fetchSeconds: Histogram;
  private readonly storeSeconds: Histogram<'operation'>;

  constructor(
    kind: 'crawl' | 'server',
    lines: LineStats,
    private readonly take: () => Promise<SourceSnapshot>,
  ) {
    collectDefaultMetrics({ register: this.registry });
    const registers = [this.registry];
    this.counter('cobweb_pages_fetched_total', 'URLs that got a response, by status class', ['status'], () =>
      byLabel('status', lines.fetched),
    );
    this.counter(
      'cobweb_pages_failed_total',
      'URLs given up on without a response, by error',
      ['error'],
      () => byLabel('error', lines.failed),
    );
    this.counter(
      'cobweb_pages_refused_total',
      'URLs not fetched: robots.txt (reason robots) or the crawl rules, by reason',
      ['reason'],
      () => byLabel('reason', lines.refused),
    );
    this.counter('cobweb_fetched_bytes_total', 'Body bytes fetched, after decoding', [], () =>
      one(lines.bytes),
    );
    this.fetchSeconds = new Histogram({
      name: 'cobweb_fetch_duration_seconds',
      help: 'How long a fetch took, request to last body byte',
      buckets: FETCH_BUCKETS,
      registers,
    });
    this.gauge(
      'cobweb_urls',
      'URLs in the store by state (all runs): queued, in_flight (leased), retrying, done, failed, rejected',
      ['state'],
      (s) => [
        [{ state: 'queued' }, s.store.queued],
        [{ state: 'in_flight' }, s.store.leased],
        [{ state: 'retrying' }, s.store.retrying],
        [{ state: 'done' }, s.store.done],
        [{ state: 'failed' }, s.store.failed],
        [{ state: 'rejected' }, s.store.rejected],
      ],
    );
    this.counter(
      'cobweb_leases_expired_total',
      'Leases that ran out and put their URL back (all runs)',
      [],
      (s) => (s === null ? [] : one(s.store.expiredLeases)),
    );
    this.counter(
      'cobweb_stale_completions_total',
      'Completions refused because their lease had gone to someone else (all runs)',
      [],
      (s) => (s === null ? [] : one(s.store.staleCompletions)),
    );
    this.gauge(
      'cobweb_hosts',
      'Hosts by state: active (a fetch in flight), waiting (URLs queued), retired (given up on)',
      ['state'],
      (s) =>
        s.hosts === null
          ? []
          : [
              [{ state: 'active' }, s.hosts.active],
              [{ state: 'waiting' }, s.hosts.waiting],
              [{ state: 'retired' }, s.hosts.retired],
            ],
    );
    this.gauge('cobweb_paused', '1 while no new URLs are leased (paused from the console)', [], (s) =>
      one(s.state === 'paused' ? 1 : 0),
    );
    this.moduleMetrics();
    this.storeSeconds = new Histogram({
      name: 'cobweb_store_operation_duration_seconds',
      help: 'How long a call on the store took, by operation (lease_wait: a lease that may long-poll)',
      labelNames: ['operation'],
      buckets: STORE_BUCKETS,
      registers,
    });
    if (kind === 'crawl') {
      this.gauge('cobweb_fetches_in_flight', "This process's fetches on the network", [], (s) =>
        one(s.fetching ?? 0),
      );
      this.counter('cobweb_warc_written_bytes_total', 'Bytes written to WARC files', [], (s) =>
        one(s?.warcBytes ?? 0),
      );
    } else {
      this.serverMetrics();
    }
  }

  /**
   * Fetch times of lines just written (a line without one, a refused URL, adds nothing),
   * kept as plain numbers and put in the histogram at the next scrape.
   */
  observeLines(records: readonly PageRecord[]): void {
    for (const r of records) {
      if (typeof r.durationMs === 'number' && r.fetchedAt !== null) this.pendingMs.push(r.durationMs);
    }
    if (this.pendingMs.length > 10_000) this.flushFetchTimes();
  }

  /** The fetch times kept since the last scrape, into the histogram. */
  private flushFetchTimes(): void {
    for (const ms of this.pendingMs) this.fetchSeconds.observe(ms / 1000);
    this.pendingMs = [];
  }

  observeStore(call: StoreCall): void {
    this.storeSeconds.observe({ operation: call.operation }, call.seconds);
  }

  /** The text format, from a snapshot taken now. */
  async render(): Promise<string> {
    this.snapshot = await this.take();
    this.flushFetchTimes();
    return this.registry.metrics();
  }

  get contentType(): string {
    return this.registry.contentType;
  }

  private moduleMetrics(): void {
    const perModule = (pick: (m: ModuleStats) => number) => (s: SourceSnapshot | null) =>
      (s?.modules ?? []).map((m): [Labels, number] => [{ module: m.name }, pick(m)]);
    this.counter(
      'cobweb_module_calls_total',
      'Calls of a module hook',
      ['module'],
      perModule((m) => m.calls),
    );
    this.counter(
      'cobweb_module_errors_total',
      'Module calls that threw',
      ['module'],
      perModule((m) => m.errors),
    );
    this.counter(
      'cobweb_module_timeouts_total',
      'Module calls cut off at --module-timeout',
      ['module'],
      perModule((m) => m.timeouts),
    );
    this.counter(
      'cobweb_module_skipped_pages_total',
      "Pages that went without a module's results",
      ['module'],
      perModule((m) => m.skipped),
    );
    this.counter(
      'cobweb_module_call_seconds_total',
      'Time spent in module calls',
      ['module'],
      perModule((m) => (m.meanMs * m.calls) / 1000),
    );
  }

  private serverMetrics(): void {
    const traffic = (s: SourceSnapshot | null) => s?.traffic ?? null;
    this.gauge('cobweb_server_bunnies', 'Bunnies connected to the server', [], (s) =>
      one(s.bunnies?.length ?? 0),
    );
    this.counter('cobweb_server_packets_total', 'Packets received, by type', ['type'], (s) =>
      byLabel('type', traffic(s)?.packets ?? {}),
    );
    this.counter('cobweb_server_errors_sent_total', 'ERROR packets sent, by code', ['code'], (s) =>
      byLabel('code', traffic(s)?.errors ?? {}),
    );
    this.counter('cobweb_server_received_bytes_total', 'Bytes received from clients', [], (s) =>
      one(traffic(s)?.bytesIn ?? 0),
    );
    this.counter('cobweb_server_sent_bytes_total', 'Bytes sent to clients', [], (s) =>
      one(traffic(s)?.bytesOut ?? 0),
    );
    this.counter('cobweb_server_connections_total', 'Connections taken', [], (s) =>
      one(traffic(s)?.connections ?? 0),
    );
  }

  /** A counter whose series are read at each scrape (it only ever goes up: its source counts). */
  private counter(
    name: string,
    help: string,
    labelNames: readonly string[],
    values: (s: SourceSnapshot | null) => Series,
  ): void {
    const read = () => this.snapshot;
    new Counter({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        for (const [labels, v] of values(read())) this.inc(labels, v);
      },
    });
  }

  private gauge(
    name: string,
    help: string,
    labelNames: readonly string[],
    values: (s: SourceSnapshot) => Series,
  ): void {
    const read = () => this.snapshot;
    new Gauge({
      name,
      help,
      labelNames,
      registers: [this.registry],
      collect() {
        this.reset();
        const s = read();
        if (s !== null) for (const [labels, v] of values(s)) this.set(labels, v);
      },
    });
  }
}
