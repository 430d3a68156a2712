/**
 * The benchmark's verdict on a seen set's answers: the stream knows which links are new
 * (truth 1) and which were met before (truth 0), so every wrong answer is counted.
 * - a false positive: a new URL answered "seen", so it would never be crawled;
 * - a false negative: a URL met before answered "new", so it would be crawled twice.
 */
export class Tally {
  falsePositives = 0;
  falseNegatives = 0;
  checked = 0;

  /** Counts the answers to one call: `answer[i]` for link i, against `truth[i]`, for the first `n`. */
  add(answer: readonly boolean[], truth: Uint8Array, n: number): void {
    for (let i = 0; i < n; i++) {
      const isNew = answer[i] === true;
      if (truth[i] === 1 && !isNew) this.falsePositives++;
      else if (truth[i] === 0 && isNew) this.falseNegatives++;
    }
    this.checked += n;
  }
}
