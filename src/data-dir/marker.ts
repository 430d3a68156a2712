import { readFileSync, renameSync, writeFileSync } from 'node:fs';
import { DataDirError } from '../errors.js';
import { productTokenOf } from '../fetch/robots/robots-txt.js';
import type { ScopeMode } from '../url/filter.js';
import { VERSION } from '../version.js';
import type { DataLayout } from './layout.js';

/** The layout of cobweb.json; a folder with a higher number was made by a newer cobweb. */
export const MARKER_FORMAT = 1;

/**
 * The settings that decide which URLs a crawl follows, as stored in the marker: a
 * resumed crawl compares them with its own (changedLinkSettings). JSON only: regular
 * expressions as their source, "no limit" as null.
 */
export interface LinkSettings {
  seeds: string[];
  scope: ScopeMode;
  maxDepth: number;
  include: string[];
  exclude: string[];
  skipExtensions: string[];
  followNofollow: boolean;
  maxPathSegments: number;
  maxSegmentRepeats: number;
  maxQueryParams: number;
  maxRedirects: number;
  maxPagesPerHost: number | null;
  sitemaps: boolean;
  ignoreRobots: boolean;
  /** The first word of the User-Agent: what robots.txt rules are matched against. */
  robotsToken: string;
  allowPrivate: boolean;
}

/** cobweb.json, at the top of every data folder cobweb made. */
export interface Marker {
  format: number;
  /** The cobweb version that last crawled into the folder. */
  cobweb: string;
  /** When the folder was made, and when a crawl last started in it (ISO 8601). */
  created: string;
  updated: string;
  settings: LinkSettings;
  /** The URL-seen set the last run used (docs/seen.md); a run with another fills it from the store. */
  seen?: SeenSettings;
  /**
   * The modules whose `data/<name>.jsonl` cobweb made (src/data-dir/module-data.ts): --fresh
   * deletes those and no other file in data/. Missing in a marker written before it was kept.
   */
  moduleData?: string[];
}

export interface SeenSettings {
  kind: string;
  capacity: number | null;
  fpRate: number;
}

/** What linkSettingsOf reads: crawl()'s options with their defaults filled in. */
export interface LinkOptions {
  scope: ScopeMode;
  maxDepth: number;
  include?: readonly RegExp[] | undefined;
  exclude?: readonly RegExp[] | undefined;
  skipExtensions: readonly string[];
  followNofollow?: boolean | undefined;
  maxPathSegments: number;
  maxSegmentRepeats: number;
  maxQueryParams: number;
  maxRedirects: number;
  maxPagesPerHost: number;
  sitemaps: boolean;
  ignoreRobots: boolean;
  userAgent: string;
  allowPrivate: boolean;
}

export function linkSettingsOf(o: LinkOptions, seeds: readonly string[]): LinkSettings {
  return {
    seeds: [...seeds],
    scope: o.scope,
    maxDepth: o.maxDepth,
    include: (o.include ?? []).map(String),
    exclude: (o.exclude ?? []).map(String),
    skipExtensions: [...o.skipExtensions].sort(),
    followNofollow: o.followNofollow ?? false,
    maxPathSegments: o.maxPathSegments,
    maxSegmentRepeats: o.maxSegmentRepeats,
    maxQueryParams: o.maxQueryParams,
    maxRedirects: o.maxRedirects,
    maxPagesPerHost: Number.isFinite(o.maxPagesPerHost) ? o.maxPagesPerHost : null,
    sitemaps: o.sitemaps,
    ignoreRobots: o.ignoreRobots,
    robotsToken: productTokenOf(o.userAgent).toLowerCase(),
    allowPrivate: o.allowPrivate,
  };
}

/** The marker of a data folder; null when it has none. A damaged or newer one is a DataDirError. */
export function readMarker(layout: DataLayout): Marker | null {
  let text: string;
  try {
    text = readFileSync(layout.marker, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT') return null;
    throw err;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (err) {
    throw new DataDirError(
      `${layout.marker} is damaged (${(err as Error).message}); restore it, or use a new --data folder`,
    );
  }
  if (typeof parsed !== 'object' || parsed === null || !('format' in parsed || 'cobweb' in parsed)) {
    // Some other program's cobweb.json: the folder is not cobweb's, whatever else is in it.
    throw new DataDirError(
      `${layout.marker} is not cobweb's marker (it has no "format" or "cobweb"), so cobweb did not make this folder; move the file, or use another --data folder`,
    );
  }
  const marker = parsed as Partial<Marker>;
  if (typeof marker.format !== 'number' || typeof marker.settings !== 'object' || marker.settings === null) {
    throw new DataDirError(
      `${layout.marker} is damaged (no format or settings); restore it, or use a new --data folder`,
    );
  }
  if (marker.format > MARKER_FORMAT) {
    throw new DataDirError(
      `--data ${layout.root} was made by a newer cobweb (${marker.cobweb ?? 'unknown'}, folder format ${marker.format}); use that version, or a new --data folder`,
    );
  }
  return marker as Marker;
}

/** The seeds the folder's last run was given: what a run given none goes on with. */
export function seedsOfMarker(layout: DataLayout): string[] {
  const seeds = readMarker(layout)?.settings.seeds;
  return Array.isArray(seeds) ? seeds.filter((s): s is string => typeof s === 'string') : [];
}

/** What a run writes into the marker: its settings, its seen set, the module data files that are cobweb's. */
export interface MarkerFields {
  settings: LinkSettings;
  seen?: SeenSettings | undefined;
  moduleData: readonly string[];
}

/** Writes the marker with this run's fields, keeping when the folder was made. */
export function writeMarker(layout: DataLayout, fields: MarkerFields, previous: Marker | null): Marker {
  const now = new Date().toISOString();
  const marker: Marker = {
    format: MARKER_FORMAT,
    cobweb: VERSION,
    created: previous?.created ?? now,
    updated: now,
    settings: fields.settings,
    ...(fields.seen === undefined ? {} : { seen: fields.seen }),
    moduleData: [...fields.moduleData],
  };
  saveMarker(layout, marker);
  return marker;
}

/** A module data file more is cobweb's: the marker lists it, the rest stays as it was. */
export function recordModuleData(layout: DataLayout, moduleData: readonly string[]): void {
  const marker = readMarker(layout);
  if (marker !== null) saveMarker(layout, { ...marker, moduleData: [...moduleData] });
}

/** Atomically: a kill leaves the old marker or the new one. */
function saveMarker(layout: DataLayout, marker: Marker): void {
  const temp = `${layout.marker}.${process.pid}.tmp`;
  writeFileSync(temp, `${JSON.stringify(marker, null, 2)}\n`);
  renameSync(temp, layout.marker);
}

/**
 * The link-deciding settings that differ between the marker's (the last run on the
 * folder) and this run's, in LinkSettings order. None when there was no earlier run.
 */
export function changedLinkSettings(
  before: Partial<LinkSettings> | undefined,
  after: LinkSettings,
): (keyof LinkSettings)[] {
  if (before === undefined) return [];
  return (Object.keys(after) as (keyof LinkSettings)[]).filter(
    (key) => key in before && JSON.stringify(before[key]) !== JSON.stringify(after[key]),
  );
}

/** How each setting is named on the command line, for the line that says what changed. */
const FLAG_OF: Record<keyof LinkSettings, string> = {
  seeds: 'seeds',
  scope: '--scope',
  maxDepth: '--max-depth',
  include: '--include',
  exclude: '--exclude',
  skipExtensions: '--skip-ext',
  followNofollow: '--follow-nofollow',
  maxPathSegments: '--max-path-segments',
  maxSegmentRepeats: '--max-segment-repeats',
  maxQueryParams: '--max-query-params',
  maxRedirects: '--max-redirects',
  maxPagesPerHost: '--max-pages-per-host',
  sitemaps: '--sitemaps',
  ignoreRobots: '--ignore-robots',
  robotsToken: 'the robots.txt token of --user-agent',
  allowPrivate: '--allow-private',
};

/** One line saying what changed since the last run on the folder; null when nothing did. */
export function describeLinkChanges(
  before: Partial<LinkSettings> | undefined,
  after: LinkSettings,
): string | null {
  const changed = changedLinkSettings(before, after);
  if (changed.length === 0 || before === undefined) return null;
  const parts = changed.map((key) => {
    const was = before[key];
    const now = after[key];
    if (Array.isArray(was) && Array.isArray(now)) {
      const added = now.filter((v) => !was.includes(v)).length;
      const dropped = was.filter((v) => !now.includes(v)).length;
      return `${FLAG_OF[key]} ${[added > 0 ? `${added} added` : '', dropped > 0 ? `${dropped} dropped` : ''].filter(Boolean).join(', ') || 'reordered'}`;
    }
    return `${FLAG_OF[key]} ${shownSetting(was)} -> ${shownSetting(now)}`;
  });
  return `the options that decide which URLs are followed changed since the last run on this folder: ${parts.join('; ')}`;
}

function shownSetting(v: unknown): string {
  if (v === null) return 'no limit';
  if (typeof v === 'boolean') return v ? 'on' : 'off';
  return String(v);
}
