import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { PageRecord } from '../output/pages-log.js';
import { outcomeOf } from '../output/run-counts.js';

/** One host's line in the report. */
export interface HostLine {
  host: string;
  pages: number;
  /** 4xx and 5xx responses, and failures without a response. */
  errors: number;
  bytes: number;
  /** Mean fetch time of its fetches, ms. */
  meanMs: number;
}

/** What `cobweb report` shows, added up from pages.jsonl. */
export interface ReportData {
  lines: number;
  /** Responses by status code ("200"), failures by error ("timeout"), refusals by reason. */
  statuses: Record<string, number>;
  errors: Record<string, number>;
  refused: Record<string, number>;
  contentTypes: Record<string, number>;
  /** Fetched pages (a response came) by depth, index = depth; refused and failed URLs are not pages. */
  depths: number[];
  hosts: HostLine[];
  biggest: { url: string; bytes: number; contentType: string | null; status: number | null }[];
  /** Pages per second over the crawl: bucket start (epoch s), pages per second in it. */
  timeline: { t: number; pagesPerSecond: number }[];
  first: string | null;
  last: string | null;
  /**
   * Seconds spent crawling: each crawling process's span (its first fetch to the end of
   * its last), overlapping spans counted once, so the idle time between runs is not.
   */
  crawlSeconds: number;
}

const BIGGEST = 20;
/** The timeline has at most this many buckets: a long crawl gets wider ones. */
const BUCKETS = 1500;

interface HostSum {
  pages: number;
  errors: number;
  bytes: number;
  ms: number;
  timed: number;
}

/**
 * Reads pages.jsonl line by line (a torn or foreign line is skipped) and adds it up, and
 * refused.jsonl beside it for the refusals.
 */
export async function reportData(pagesFile: string, refusedFile?: string): Promise<ReportData> {
  const statuses: Record<string, number> = {};
  const errors: Record<string, number> = {};
  const refused: Record<string, number> = {};
  const contentTypes: Record<string, number> = {};
  const depths: number[] = [];
  const hosts = new Map<string, HostSum>();
  const biggest: ReportData['biggest'] = [];
  const seconds = new Map<number, number>();
  let lines = 0;
  let first: number | null = null;
  let last: number | null = null;
  // Per crawler id (each run, each bunny, has its own): the span of its fetches.
  const spans = new Map<string, { from: number; to: number }>();
  const bump = (into: Record<string, number>, key: string) => {
    into[key] = (into[key] ?? 0) + 1;
  };
  for (const file of [pagesFile, refusedFile]) {
    if (file === undefined || !existsSync(file)) continue;
    const input = createInterface({
      input: createReadStream(file),
      crlfDelay: Number.POSITIVE_INFINITY,
    });
    for await (const text of input) {
      const r = parse(text);
      if (r === null) continue;
      if (file === pagesFile) lines++;
      const o = outcomeOf(r);
      if (o.kind === 'fetched') bump(statuses, String(r.status));
      else if (o.kind === 'failed') bump(errors, o.key);
      else bump(refused, o.key);
      if (r.status !== null)
        bump(contentTypes, (r.contentType ?? '(none)').split(';')[0]?.trim() || '(none)');
      if (o.kind === 'fetched' && Number.isInteger(r.depth) && r.depth >= 0 && r.depth < 10_000) {
        for (let d = depths.length; d <= r.depth; d++) depths.push(0);
        depths[r.depth] = (depths[r.depth] ?? 0) + 1;
      }
      if (o.kind === 'refused') continue;
      const host = hostOf(r.url);
      const h = hosts.get(host) ?? { pages: 0, errors: 0, bytes: 0, ms: 0, timed: 0 };
      h.pages++;
      if (o.kind === 'failed' || (r.status ?? 0) >= 400) h.errors++;
      h.bytes += r.bytes ?? 0;
      if (typeof r.durationMs === 'number') {
        h.ms += r.durationMs;
        h.timed++;
      }
      hosts.set(host, h);
      if (typeof r.bytes === 'number') keepBiggest(biggest, r);
      const at = r.fetchedAt === null ? Number.NaN : Date.parse(r.fetchedAt);
      if (Number.isFinite(at)) {
        const s = Math.floor(at / 1000);
        seconds.set(s, (seconds.get(s) ?? 0) + 1);
        first = first === null ? at : Math.min(first, at);
        last = last === null ? at : Math.max(last, at);
        const key = String(r.crawler ?? '');
        const end = at + (typeof r.durationMs === 'number' ? r.durationMs : 0);
        const span = spans.get(key);
        if (span === undefined) spans.set(key, { from: at, to: end });
        else {
          span.from = Math.min(span.from, at);
          span.to = Math.max(span.to, end);
        }
      }
    }
  }
  return {
    lines,
    statuses,
    errors,
    refused,
    contentTypes,
    depths,
    hosts: [...hosts].map(([host, h]) => ({
      host,
      pages: h.pages,
      errors: h.errors,
      bytes: h.bytes,
      meanMs: h.timed === 0 ? 0 : h.ms / h.timed,
    })),
    biggest,
    timeline: timeline(seconds),
    first: first === null ? null : new Date(first).toISOString(),
    last: last === null ? null : new Date(last).toISOString(),
    crawlSeconds: unionMs([...spans.values()]) / 1000,
  };
}

/** The length of the union of spans, ms: concurrent processes' time counted once. */
function unionMs(spans: { from: number; to: number }[]): number {
  let total = 0;
  let end = Number.NEGATIVE_INFINITY;
  for (const s of spans.sort((a, b) => a.from - b.from)) {
    if (s.to <= end) continue;
    total += s.to - Math.max(s.from, end);
    end = s.to;
  }
  return total;
}

function parse(text: string): PageRecord | null {
  if (text.trim() === '') return null;
  try {
    const r = JSON.parse(text) as PageRecord;
    return typeof r === 'object' && r !== null && typeof r.url === 'string' ? r : null;
  } catch {
    return null; // the torn last line of a killed run
  }
}

function hostOf(url: string): string {
  try {
    return new URL(url).host;
  } catch {
    return '(bad URL)';
  }
}

function keepBiggest(biggest: ReportData['biggest'], r: PageRecord): void {
  const bytes = r.bytes ?? 0;
  if (biggest.length >= BIGGEST && bytes <= (biggest.at(-1)?.bytes ?? 0)) return;
  biggest.push({ url: r.url, bytes, contentType: r.contentType, status: r.status });
  biggest.sort((a, b) => b.bytes - a.bytes);
  if (biggest.length > BIGGEST) biggest.length = BIGGEST;
}

/** Pages per second, in buckets of whole seconds, empty seconds included. */
function timeline(seconds: Map<number, number>): ReportData['timeline'] {
  if (seconds.size === 0) return [];
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const s of seconds.keys()) {
    start = Math.min(start, s);
    end = Math.max(end, s);
  }
  const width = Math.max(1, Math.ceil((end - start + 1) / BUCKETS));
  const out: ReportData['timeline'] = [];
  for (let t = start; t <= end; t += width) {
    let n = 0;
    for (let s = t; s < t + width; s++) n += seconds.get(s) ?? 0;
    out.push({ t, pagesPerSecond: n / width });
  }
  return out;
}
