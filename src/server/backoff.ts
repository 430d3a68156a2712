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
  private readonly handed = new Map<string, number>();
  private readonly offered = new Map<string, number>();
  private readonly steps: BackoffStep[];

  constructor(steps: readonly BackoffStep[]) {
    this.steps = [...steps].sort((a, b) => a.after - b.after);
  }

  /** Whether this URL of `server` (its host and port) is handed out now, or held back. */
  handOut(server: string): boolean {
    const handed = this.handed.get(server) ?? 0;
    let every = 1;
    for (const s of this.steps) if (handed >= s.after) every = s.every;
    const offered = (this.offered.get(server) ?? 0) + 1;
    this.offered.set(server, offered);
    if (offered % every !== 0) return false;
    this.handed.set(server, handed + 1);
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
