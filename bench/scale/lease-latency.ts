// Lease latency as a crawling process sees it, read from its /metrics: the histogram
// cobweb_store_operation_duration_seconds that --http turns on, which times every call
// on the store from the caller's side. A lease that may long-poll is `lease_wait` (its
// time includes waiting for a host to become ready); one that may not is `lease`.

export interface OperationLatency {
  count: number;
  /** Upper bounds of the histogram buckets that hold the median and the 99th percentile, ms. */
  p50Ms: number;
  p99Ms: number;
}

export interface LeaseLatency {
  lease?: OperationLatency;
  leaseWait?: OperationLatency;
}

const BUCKET = /^cobweb_store_operation_duration_seconds_bucket\{([^}]*)\}\s+(\S+)/;

/** The cumulative buckets of one operation, by upper bound (seconds). */
function bucketsOf(text: string, operation: string): [number, number][] {
  const buckets: [number, number][] = [];
  for (const line of text.split('\n')) {
    const m = BUCKET.exec(line);
    if (m === null || !m[1]?.includes(`operation="${operation}"`)) continue;
    const le = /le="([^"]+)"/.exec(m[1])?.[1];
    if (le === undefined) continue;
    buckets.push([le === '+Inf' ? Number.POSITIVE_INFINITY : Number(le), Number(m[2])]);
  }
  return buckets.sort((a, b) => a[0] - b[0]);
}

function latencyOf(text: string, operation: string): OperationLatency | undefined {
  const buckets = bucketsOf(text, operation);
  const count = buckets.at(-1)?.[1] ?? 0;
  if (count === 0) return undefined;
  const at = (q: number): number => {
    const bound = buckets.find(([, cumulative]) => cumulative >= q * count)?.[0] ?? Number.POSITIVE_INFINITY;
    return bound * 1000;
  };
  return { count, p50Ms: at(0.5), p99Ms: at(0.99) };
}

export function leaseLatency(metricsText: string): LeaseLatency | undefined {
  const lease = latencyOf(metricsText, 'lease');
  const leaseWait = latencyOf(metricsText, 'lease_wait');
  if (lease === undefined && leaseWait === undefined) return undefined;
  return { ...(lease === undefined ? {} : { lease }), ...(leaseWait === undefined ? {} : { leaseWait }) };
}
