import { EXIT, type StopSignal } from './exit-codes.js';

/** What a crawling command hears of Ctrl-C and SIGTERM while it runs. */
export interface StopListener {
  /** Aborted at the first signal: the command stops taking new URLs. */
  readonly signal: AbortSignal;
  /** The first signal received, if any: the command's exit code follows it. */
  readonly received: StopSignal | null;
  /** Stops listening (the command is over). */
  dispose(): void;
}

/**
 * The first Ctrl-C or SIGTERM stops the crawl gently: the fetches in flight finish and are
 * written, which is said at once, even under --quiet (the user is waiting, and a second
 * signal loses what is in flight). A second quits at once, with the signal's exit code.
 * `beforeSaying` clears what the terminal shows (a progress line) first.
 */
export function listenForStop(beforeSaying: () => void): StopListener {
  const stop = new AbortController();
  let received: StopSignal | null = null;
  const onSignal = (signal: StopSignal) => {
    if (received !== null) process.exit(EXIT[signal]);
    received = signal;
    beforeSaying();
    process.stderr.write('cobweb: stopping: finishing the fetches in flight (again to quit at once)\n');
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  return {
    signal: stop.signal,
    get received() {
      return received;
    },
    dispose() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
    },
  };
}
