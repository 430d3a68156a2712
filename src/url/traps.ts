/**
 * Spider-trap defenses: URL shapes that a site can generate without end (calendars,
 * relative links that nest forever, session parameters piling up). Each refusal is
 * recorded with its reason; each limit is configurable.
 */

export interface TrapLimits {
  /** More path segments than this is a trap ('path-depth'); default 20. */
  maxPathSegments: number;
  /** One segment appearing more often than this in a path is a trap ('repeated-segment'); default 2. */
  maxSegmentRepeats: number;
  /** More query parameters than this is a trap ('query-params'); default 20. */
  maxQueryParams: number;
}

export type TrapReason = 'path-depth' | 'repeated-segment' | 'query-params';

export const DEFAULT_TRAP_LIMITS: TrapLimits = Object.freeze({
  maxPathSegments: 20,
  maxSegmentRepeats: 2,
  maxQueryParams: 20,
});

/** Which trap a canonical URL falls into, or null. */
export function trapOf(canonicalUrl: string, limits: TrapLimits): TrapReason | null {
  const pathStart = canonicalUrl.indexOf('/', canonicalUrl.indexOf('//') + 2);
  if (pathStart === -1) return null;
  let queryStart = canonicalUrl.indexOf('?', pathStart);
  if (queryStart === -1) queryStart = canonicalUrl.length;

  // Every link is checked: count segments by scanning, and split only a path long
  // enough to repeat one.
  let segments = 1;
  for (let i = pathStart + 1; i < queryStart; i++) if (canonicalUrl.charCodeAt(i) === 0x2f) segments++;
  if (segments > limits.maxPathSegments) return 'path-depth';
  if (segments > limits.maxSegmentRepeats) {
    // Counting every occurrence, not only neighbours, catches /a/b/a/b/a/b as well as
    // /a/a/a: both are what relative links resolved against a growing base produce.
    const seen = new Map<string, number>();
    for (const s of canonicalUrl.slice(pathStart + 1, queryStart).split('/')) {
      if (s === '') continue;
      const n = (seen.get(s) ?? 0) + 1;
      if (n > limits.maxSegmentRepeats) return 'repeated-segment';
      seen.set(s, n);
    }
  }

  if (queryStart < canonicalUrl.length) {
    let params = 1;
    for (let i = queryStart + 1; i < canonicalUrl.length; i++)
      if (canonicalUrl.charCodeAt(i) === 0x26) params++;
    if (params > limits.maxQueryParams) return 'query-params';
  }
  return null;
}
