/**
 * The --resolve map as a lookup: `host:port` -> the address to dial, or undefined.
 *
 * Keys are `host:port` (exact, as curl's --resolve) or `*.suffix:port` (a wildcard: any
 * host ending in `.suffix` on that port, the suffix itself not included). An exact entry
 * wins over every wildcard; among wildcards the longest suffix wins, so
 * `*.dead.example.test` can send a part of `*.example.test` elsewhere. Hostnames are
 * compared in lowercase (URL hostnames are).
 */
export type ResolveLookup = (hostname: string, port: string) => string | undefined;

interface Wildcard {
  /** '.suffix', lowercase, with its leading dot. */
  dotSuffix: string;
  port: string;
  address: string;
}

/** Whether a --resolve key is a wildcard (`*.suffix:port`). */
export function isWildcardResolveKey(key: string): boolean {
  return key.startsWith('*.');
}

export function resolveLookupOf(resolve: ReadonlyMap<string, string> | undefined): ResolveLookup | null {
  if (resolve === undefined || resolve.size === 0) return null;
  const exact = new Map<string, string>();
  const wildcards: Wildcard[] = [];
  for (const [key, address] of resolve) {
    const lower = key.toLowerCase();
    if (!isWildcardResolveKey(lower)) {
      exact.set(lower, address);
      continue;
    }
    const colon = lower.lastIndexOf(':');
    wildcards.push({ dotSuffix: lower.slice(1, colon), port: lower.slice(colon + 1), address });
  }
  // Longest suffix first: the first match is the most specific.
  wildcards.sort((a, b) => b.dotSuffix.length - a.dotSuffix.length);
  if (wildcards.length === 0) return (hostname, port) => exact.get(`${hostname}:${port}`);
  return (hostname, port) => {
    const found = exact.get(`${hostname}:${port}`);
    if (found !== undefined) return found;
    const lower = hostname.toLowerCase();
    for (const w of wildcards) {
      if (w.port === port && lower.endsWith(w.dotSuffix) && lower.length > w.dotSuffix.length)
        return w.address;
    }
    return undefined;
  };
}
