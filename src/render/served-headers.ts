/**
 * Headers that describe the bytes as they crossed the network (their encoding, length,
 * framing, connection), not the decoded body a route.fulfill serves to the browser.
 */
const WIRE_HEADERS = new Set([
  'content-encoding',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
]);

/** `headers` fit to serve a decoded body with: the wire's left out, and any of `drop` (lower case). */
export function servedHeaders(
  headers: Readonly<Record<string, string>>,
  drop: readonly string[] = [],
): Record<string, string> {
  const served: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    const lower = name.toLowerCase();
    if (!WIRE_HEADERS.has(lower) && !drop.includes(lower)) served[name] = value;
  }
  return served;
}
