import { hostKey } from '../../url/host.js';

/** The hosts (politeness keys) of links, each once. */
export function hostsOfLinks(links: readonly { url: string }[]): string[] {
  return [...new Set(links.map((l) => hostKey(l.url)))];
}
