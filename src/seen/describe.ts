/**
 * A seen set's figures as stats() reports them (FrontierStats.seen; STATSREPLY's seen on
 * the wire): its kind ('memory', 'bloom', 'lmdb', 'drum', or 'table', the store's own) and
 * how many URLs it holds; a bloom filter also its capacity, its target rate, its m and k,
 * and the false-positive rate it has now, which climbs as it fills.
 */
export interface SeenFigures {
  kind: string;
  size: number;
  capacity?: number;
  fpRate?: number;
  /** bloom: its m (bits) and k (hash functions), from capacity and fpRate. */
  bits?: number;
  hashes?: number;
  /** bloom: the chance that a new URL is taken as seen (and never crawled), now. */
  estimatedFpRate?: number;
}

/**
 * One line about a seen set for people: its kind and size and, for a bloom filter, the
 * false-positive rate it has now, which climbs as it fills (a new URL taken as seen is
 * never crawled, and nothing else would show it).
 */
export function describeSeen(s: SeenFigures): string {
  const what = s.kind === 'table' ? "the store's own table" : s.kind;
  const base = `seen set: ${what}, ${s.size} ${s.size === 1 ? 'URL' : 'URLs'}`;
  if (s.estimatedFpRate === undefined) return base;
  const capacity = s.capacity === undefined ? '' : ` of its capacity ${s.capacity}`;
  const sized = s.bits === undefined || s.hashes === undefined ? '' : ` (m ${s.bits} bits, k ${s.hashes})`;
  const target = s.fpRate === undefined ? '' : ` (target ${s.fpRate})`;
  return `${base}${capacity}${sized}; estimated false-positive rate now ${s.estimatedFpRate.toExponential(2)}${target}`;
}
