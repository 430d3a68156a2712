/**
 * The "probability" back-off per web server: after X URLs of one server were handed
 * out, only every second URL of it is; after Y, every third; and so on
 * (`--backoff 100:2,1000:3,10000:4`). A URL held back goes back to the queue, deferred,
 * never dropped: a busy server's URLs are spread out among the others'.
 */
export interface BackoffStep {
  /** From this many hand-outs to one server... */
  after: number;
  /** ...only every this-many-th URL of it is handed out. */
  every: number;
}

export class ProbabilityBackoff {
  /** Per server: URLs handed out, and offers since its current step began. */
  private readonly servers = new Map<string, { handed: number; every: number; offered: number }>();
  private readonly steps: BackoffStep[];

  constructor(steps: readonly BackoffStep[]) {
    this.steps = [...steps].sort((a, b) => a.after - b.after);
  }

  /** Whether this URL of `server` (its host and port) is handed out now, or held back. */
  handOut(server: string): boolean {
    // Without steps (the default) nothing is counted: a server meeting 10^5 hosts would
    // otherwise keep a counter for each, for nothing.
    if (this.steps.length === 0) return true;
    let s = this.servers.get(server);
    if (s === undefined) {
      s = { handed: 0, every: 1, offered: 0 };
      this.servers.set(server, s);
    }
    let every = 1;
    for (const step of this.steps) if (s.handed >= step.after) every = step.every;
    // A new step counts its offers from naught: the first one after X hits is held back.
    if (every !== s.every) {
      s.every = every;
      s.offered = 0;
    }
    s.offered++;
    if (s.offered % every !== 0) return false;
    s.handed++;
    return true;
  }
}

/** --backoff "100:2,1000:3": each step AFTER:EVERY, both whole numbers, EVERY at least 1. */
export function parseBackoff(text: string): BackoffStep[] {
  if (text.trim() === '') return [];
  return text.split(',').map((part) => {
    const m = /^\s*(\d+):(\d+)\s*$/.exec(part);
    if (m === null || Number(m[2]) < 1) {
      throw new Error(`--backoff: "${part}" is not AFTER:EVERY (like 100:2), EVERY at least 1`);
    }
    return { after: Number(m[1]), every: Number(m[2]) };
  });
}
