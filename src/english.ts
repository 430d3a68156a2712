/**
 * Counts in the lines a user reads, so that they read as English: "1 URL", "2 URLs",
 * "0 calls"; `plural` for a noun that does not take an s ("1 bunny", "2 bunnies").
 */
export function count(n: number, noun: string, plural = `${noun}s`): string {
  return `${n} ${n === 1 ? noun : plural}`;
}

/** The verb that goes with a count: `agree(1, 'is', 'are')` is "is". */
export function agree(n: number, one: string, many: string): string {
  return n === 1 ? one : many;
}
