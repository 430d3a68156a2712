/** What drum's main thread and its merging thread say to each other. */

export interface DrumWorkerData {
  dir: string;
  bufferSize: number;
  /** The journal is cut down to its unflushed records once it is larger than this. */
  journalLimitBytes: number;
}

export type DrumRequest =
  | {
      type: 'merge';
      batch: number;
      /** The batch's fingerprints (moved, not copied), `count` of them from the start. */
      buffer: ArrayBuffer;
      count: number;
      /** The last batch the caller has flushed: journal records up to it may go. */
      flushedThrough: number;
      /** The scratch of an earlier merge (MergeScratch), moved back to be used again; absent: make one. */
      scratch?: ArrayBuffer;
    }
  | {
      type: 'close';
      /** The last batch flushed: the journal keeps only the records after it. */
      flushedThrough: number;
    };

export type DrumReply =
  | { type: 'ready'; count: number; lastBatch: number }
  | {
      type: 'merged';
      batch: number;
      /**
       * The merge's scratch (MergeScratch over the buffer size), moved: its `verdicts`
       * hold one byte per fingerprint of the batch, in its order, 1 for new.
       */
      scratch: ArrayBuffer;
      /** The batch's buffer, handed back to gather the next batch in (its contents are spent). */
      buffer: ArrayBuffer;
      /** Fingerprints in the sorted file after this merge. */
      total: number;
    }
  | { type: 'closed' }
  | { type: 'error'; message: string };
