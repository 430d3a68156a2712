import { count } from '../../english.js';
import { backoffMs } from '../policy/backoff.js';

/** Time as the reconnect loop sees it: a test gives a clock of its own, and no real waiting. */
export interface Clock {
  now(): number;
  /** Resolves after `ms`, or at once when `signal` aborts. */
  sleep(ms: number, signal?: AbortSignal): Promise<void>;
}

export const SYSTEM_CLOCK: Clock = {
  now: () => Date.now(),
  sleep: (ms, signal) =>
    new Promise((resolve) => {
      if (signal?.aborted) {
        resolve();
        return;
      }
      const done = () => {
        clearTimeout(timer);
        signal?.removeEventListener('abort', done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      signal?.addEventListener('abort', done, { once: true });
    }),
};

export interface ReconnectSettings {
  /** The first wait after a failed attempt; each next one doubles, up to maxRetryMs. */
  firstRetryMs: number;
  maxRetryMs: number;
  /**
   * A server that was never reached is given up on after this long (a wrong --server
   * fails, rather than waiting forever). One that welcomed us is waited for until it is
   * back: it is being restarted, and the bunny's completions wait for it.
   */
  firstConnectForMs: number;
  /** "Still trying" is said at most once per this long. */
  logEveryMs: number;
}

export const RECONNECT: ReconnectSettings = {
  firstRetryMs: 100,
  maxRetryMs: 5000,
  firstConnectForMs: 60_000,
  logEveryMs: 30_000,
};

/** What to do after a failed attempt: wait this long and try again (or give up: null), and whether to say so. */
export interface NextAttempt {
  waitMs: number | null;
  /** A line to log now, or null (the line is rate-limited). */
  say: string | null;
}

/**
 * One stretch of time without the server, from the first failed attempt to the one
 * that gets WELCOME: how long to wait between attempts, when to give up, and when to
 * tell the user.
 */
export class Outage {
  private attempts = 0;
  private readonly started: number;
  private lastSaid = Number.NEGATIVE_INFINITY;

  constructor(
    private readonly settings: ReconnectSettings,
    /** The server welcomed us before: it is waited for, however long. */
    private readonly welcomedBefore: boolean,
    private readonly where: string,
    private readonly clock: Clock,
  ) {
    this.started = clock.now();
  }

  get tries(): number {
    return this.attempts;
  }

  get forMs(): number {
    return this.clock.now() - this.started;
  }

  failed(why: string): NextAttempt {
    this.attempts++;
    const now = this.clock.now();
    if (!this.welcomedBefore && now - this.started >= this.settings.firstConnectForMs) {
      return { waitMs: null, say: null };
    }
    const waitMs = backoffMs(this.settings.firstRetryMs, this.attempts, this.settings.maxRetryMs);
    if (!this.welcomedBefore || now - this.lastSaid < this.settings.logEveryMs) return { waitMs, say: null };
    const first = this.lastSaid === Number.NEGATIVE_INFINITY;
    this.lastSaid = now;
    const retry = `trying again every ${this.settings.maxRetryMs / 1000} s at most, until it is back (Ctrl-C to stop)`;
    return {
      waitMs,
      say: first
        ? `lost the cobweb server at ${this.where} (${why}); ${retry}`
        : `still no cobweb server at ${this.where} after ${count(this.attempts, 'attempt')} in ${Math.round(this.forMs / 1000)} s (${why}); ${retry}`,
    };
  }

  /** The line for the attempt that got through, when the outage was said. */
  back(): string | null {
    if (this.lastSaid === Number.NEGATIVE_INFINITY) return null;
    return `the cobweb server at ${this.where} is back, after ${count(this.attempts, 'attempt')} in ${Math.round(this.forMs / 1000)} s`;
  }
}
