/**
 * The URL-seen set: which URL fingerprints the crawl has met before. The frontier asks
 * it before queueing a link; every strategy (memory, bloom, lmdb, drum) keeps this
 * contract and passes the same contract tests.
 *
 * Fingerprints are 64-bit unsigned integers (src/seen/fingerprint.ts makes them from
 * canonical URLs). A seen set never says "new" twice for one fingerprint, and a
 * fingerprint it has said "new" for is remembered once flush() resolves.
 */
export interface SeenSet {
  /**
   * Marks the fingerprints as seen and resolves, in input order, to whether each was
   * new. A fingerprint repeated within one call is new at most once (its first
   * occurrence). May resolve late (a strategy that merges on disk answers after the
   * merge); calls resolve in the order they were made.
   */
  insertNew(fingerprints: BigUint64Array): Promise<boolean[]>;
  /**
   * Makes durable the marks of every insertNew() call that had resolved when flush() was
   * called, and no others: a call still waiting (drum) is not covered, since its caller
   * has not acted on its answers yet. Nothing becomes durable except through flush(), so
   * after a kill the set holds exactly what was flushed. (A no-op for a set that lives
   * in memory only.)
   */
  flush(): Promise<void>;
  /** Lets waiting calls resolve, flushes as flush() would have when close() was called, and lets go of files and threads. */
  close(): Promise<void>;
  /** Fingerprints held (for bloom: insertions that were new, an estimate). */
  readonly size: number;
  /** False where false positives are possible (bloom): a new URL may be taken as seen. */
  readonly exact: boolean;
}
