/**
 * Cheap accessors for canonical URLs (the output of canonicalize()): `http(s)://host[:port]/...`
 * with a lowercase host, no userinfo and always a path. Because the shape is known, slicing the
 * string is enough; a URL object per call would cost far more on the crawler's hot path.
 * Behaviour on strings that are not canonical URLs is unspecified.
 */

/** Index just past `://`, where the host starts. */
function hostStart(canonicalUrl: string): number {
  return canonicalUrl.indexOf('://') + 3;
}

/** Index of the `/` that starts the path, which ends the authority. */
function hostEnd(canonicalUrl: string, start: number): number {
  const slash = canonicalUrl.indexOf('/', start);
  return slash === -1 ? canonicalUrl.length : slash;
}

/** The politeness key of a canonical URL: its host with port when non-default (URL.host), lowercase. */
export function hostKey(canonicalUrl: string): string {
  const start = hostStart(canonicalUrl);
  return canonicalUrl.slice(start, hostEnd(canonicalUrl, start));
}

/** The origin of a canonical URL: `scheme://host[:port]`, as URL.origin gives it. */
export function originOf(canonicalUrl: string): string {
  return canonicalUrl.slice(0, hostEnd(canonicalUrl, hostStart(canonicalUrl)));
}

/** The hostname of a canonical URL without its port (URL.hostname); IPv6 keeps its brackets. */
export function hostnameOf(canonicalUrl: string): string {
  const start = hostStart(canonicalUrl);
  const end = hostEnd(canonicalUrl, start);
  // The port, if any, follows the last colon of the authority; searching backwards keeps the
  // scan inside the host. An authority ending in `]` is an IPv6 literal without a port.
  if (canonicalUrl.charCodeAt(end - 1) === 0x5d) return canonicalUrl.slice(start, end);
  const colon = canonicalUrl.lastIndexOf(':', end - 1);
  return canonicalUrl.slice(start, colon < start ? end : colon);
}
