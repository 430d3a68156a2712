/**
 * The URL-seen set: which URL fingerprints the crawl has met before. The frontier asks
 * it before queueing a link; every strategy (memory, bloom, lmdb, drum) keeps this
 * contract and passes the same contract tests. docs/frontier.md has each call's
 * contract in full, beside the Frontier's.
 *
 * Fingerprints are 64-bit unsigned integers (src/url/fingerprint.ts makes them from
 * canonical URLs). A seen set never says "new" twice for one fingerprint, and a
 * fingerprint it has said "new" for is remembered once flush() resolves.
 *
 * Its one caller is a store, never a crawling process: the SQLite store's own table
 * (inside the store's transaction), the seen set a store's process holds beside its
 * file (SeenGate in src/frontier/sqlite/seen-gate.ts: asked before the transaction,
 * flushed once the rows of its answers have committed), and the reference store
 * (src/frontier/memory). PostgreSQL has none: its seen set is a unique index.
 */
export interface SeenSet {
  /**
   * Marks the fingerprints as seen and resolves, in input order, to whether each was
   * new. A fingerprint repeated within one call is new at most once (its first
   * occurrence). May resolve late (a strategy that merges on disk answers after the
   * merge); calls resolve in the order they were made.
   *
   * Called by the store for every add() and complete() with links, many times a second.
   * The caller queues (or records) every fingerprint answered new: an answer acted on
   * is the promise that the URL will be in the store. Late answers are the set's
   * backpressure: drum gathers calls until its buffer is full or the oldest has waited
   * its `maxWaitMs` (50 ms in a store), merges in a worker thread, and lets calls that
   * do not fit wait for the merge after; the store's add() and complete() wait with
   * them, and so does the crawl loop's next batch. (The SeenGate adds one wait of its
   * own: once marks have waited a second for a flush, new asks wait until the open ones
   * have committed and the flush is made.) A waiting call keeps the caller's array:
   * change it only after the call resolves. Rejects once the set is closed, or has
   * failed (drum's worker: every later call rejects too); the store's add() or
   * complete() rejects with it, which stops the crawl. When instead the store cannot
   * commit the rows of new answers, the SeenGate refuses every later ask, so that no
   * URL is ever taken as seen without its row.
   */
  insertNew(fingerprints: BigUint64Array): Promise<boolean[]>;
  /**
   * Makes durable the marks of every insertNew() call that had resolved when flush() was
   * called, and no others: a call still waiting (drum) is not covered, since its caller
   * has not acted on its answers yet. Nothing becomes durable except through flush(), so
   * after a kill the set holds exactly what was flushed. (A no-op for a set that lives
   * in memory only.)
   *
   * Called by the SeenGate, for lmdb and drum, once every answer it gave has its rows
   * committed (within a second while asks keep coming), at a crawl pass's boundary
   * (--passes), and as the store closes; a store does not
   * flush memory and bloom, which it fills from its rows at each open. Its cost follows
   * the set (memory and bloom with a folder write a snapshot of the whole table; drum
   * writes a mark; lmdb commits the marks since the last flush), so it is called at
   * checkpoints, not per call. A rejection leaves the marks of the last flush that
   * resolved: the SeenGate then refuses every later ask, and the store's next open
   * feeds the set its rows past that flush.
   */
  flush(): Promise<void>;
  /**
   * Lets waiting calls resolve, flushes as flush() would have when close() was called, and
   * lets go of files and threads. Called once, by the store closing (the SeenGate's
   * last user releasing it); calls after it reject.
   */
  close(): Promise<void>;
  /** Fingerprints held (for bloom: insertions that were new, an estimate). */
  readonly size: number;
  /** False where false positives are possible (bloom): a new URL may be taken as seen. */
  readonly exact: boolean;
}
