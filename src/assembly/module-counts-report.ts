import type { ModuleCounts, ModuleHost } from '../modules/module-host.js';

/** How often a bunny tells its server what its modules did. */
const REPORT_MS = 2000;

type Counts = { name: string } & ModuleCounts;

/**
 * A server's bunny runs the page hooks; the server counts them (modstat, the console,
 * /metrics, its summary). This sends the bunny's module calls every few seconds and once
 * at its end; a report the server did not take is added to the next.
 */
export class ModuleCountsReport {
  private unsent: Counts[] = [];
  private sending: Promise<void> = Promise.resolve();
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly host: ModuleHost,
    private readonly send: (counts: readonly Counts[]) => Promise<void>,
  ) {
    this.timer = setInterval(() => void this.flush(), REPORT_MS);
    this.timer.unref();
  }

  /** Sends what the modules did since the last report; never throws. */
  flush(): Promise<void> {
    this.sending = this.sending.then(async () => {
      const counts = merge(this.unsent, this.host.countsSince());
      this.unsent = [];
      if (counts.length === 0) return;
      try {
        await this.send(counts);
      } catch {
        // The server is away: the bunny reconnects, and these go with the next report.
        this.unsent = merge(this.unsent, counts);
      }
    });
    return this.sending;
  }

  /** The last report, then no more. */
  async close(): Promise<void> {
    clearInterval(this.timer);
    await this.flush();
  }
}

function merge(a: readonly Counts[], b: readonly Counts[]): Counts[] {
  const by = new Map<string, Counts>(a.map((c) => [c.name, { ...c }]));
  for (const c of b) {
    const was = by.get(c.name);
    by.set(
      c.name,
      was === undefined
        ? { ...c }
        : {
            name: c.name,
            calls: was.calls + c.calls,
            errors: was.errors + c.errors,
            timeouts: was.timeouts + c.timeouts,
            skipped: was.skipped + c.skipped,
            ms: was.ms + c.ms,
          },
    );
  }
  return [...by.values()];
}
