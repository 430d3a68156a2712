import type { GroupCommit } from './group-commit.js';
import { candidates } from './link-inserts.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

/**
 * add() and complete() with a held seen set (seen-gate.ts): the set is asked before the
 * transaction (drum answers late), told when the links' rows have committed, and
 * close() waits for the calls it has answered. Without a gate each call runs as it is,
 * and the store's own table answers inside the transaction (link-inserts.ts).
 */
export class SeenAnswers {
  /** add() and complete() calls waiting for the held seen set's answers: close() lets them commit first. */
  private answering = 0;
  private drained: (() => void)[] = [];

  constructor(
    private readonly s: Store,
    private readonly commit: GroupCommit,
  ) {}

  /** Whether a call the set has answered has yet to commit. */
  get busy(): boolean {
    return this.answering > 0;
  }

  /** Resolves once every call the set has answered has committed (or failed). */
  drain(): Promise<void> {
    return new Promise<void>((r) => this.drained.push(r));
  }

  /**
   * Runs an add or a completion; with a held seen set, counted until it has committed,
   * so that close() lets it finish: the set has marked its links, and a close in
   * between would leave marks the store lacks.
   */
  async answered<T>(work: () => Promise<T>): Promise<T> {
    if (this.s.gate === null) return work();
    this.answering++;
    try {
      return await work();
    } finally {
      if (--this.answering === 0) for (const done of this.drained.splice(0)) done();
    }
  }

  /** Which of the links are new, from the held seen set (null: the table answers inside the transaction). */
  async ask(items: readonly { url: string }[]): Promise<boolean[] | null> {
    if (this.s.gate === null) return null;
    if (this.s.closed) throw new Error('the frontier is closed');
    const { fresh, ask, urls } = candidates(this.s, items);
    // Asked even with nothing to ask: every ask is followed by committed() or failed().
    const answers = await this.s.gate.ask(urls);
    ask.forEach((itemIndex, j) => {
      fresh[itemIndex] = answers[j] === true;
    });
    return fresh;
  }

  /**
   * write(), for links the held seen set has answered: the set is told when their rows
   * have committed (or could not be), and flushes only when every answer it gave has
   * (see SeenGate). If the commit fails, the set holds marks the store lacks: the gate stops.
   */
  async write<T>(fresh: boolean[] | null, work: (tx: Tx) => T): Promise<T> {
    const gate = this.s.gate;
    if (fresh === null || gate === null) return this.commit.write(work);
    const anyNew = fresh.some((f) => f);
    let result: T;
    try {
      result = await this.commit.write(work);
    } catch (err) {
      gate.failed(err, anyNew);
      throw err;
    }
    gate.committed(anyNew);
    return result;
  }
}
