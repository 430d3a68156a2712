import type { UrlKind } from '../types.js';

/**
 * Where a queued URL stands, in its host's queue and in the choice of hosts: its depth
 * for a page or a sitemap; for a page requisite (--requisites), this much past its depth,
 * so that it comes after every page of its host, whatever their depths, and a host with
 * only requisites left comes after every host with a page. A requisite is stored one hop
 * below its page (the depth pages.jsonl reports), which would put it among that page's
 * links. The offset leaves room for any depth a crawl reaches and keeps a rank within
 * PostgreSQL's integer.
 */
export const REQUISITE_RANK = 1_000_000_000;

/** A queued URL's rank, from its kind and depth (what every store orders its queue by). */
export function queueRank(kind: UrlKind | undefined, depth: number): number {
  return kind === 'requisite' ? REQUISITE_RANK + depth : depth;
}

/** The depth a rank stands for (crawl passes go by depth). */
export function depthOfRank(rank: number): number {
  return rank >= REQUISITE_RANK ? rank - REQUISITE_RANK : rank;
}

/**
 * Whether a URL of this rank belongs to a crawl pass that leases depths below
 * `passDepth` (Infinity: no pass, every rank).
 */
export function inPass(rank: number, passDepth: number): boolean {
  return depthOfRank(rank) < passDepth;
}
