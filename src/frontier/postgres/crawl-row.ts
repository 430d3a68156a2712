import type { JsonObject } from '../../protocol/index.js';
import type { FrontierSettings } from '../types.js';
import { CREATE_SLOTS } from './counts.js';
import type { Database } from './database.js';

/** What the crawls row keeps for processes that join the crawl later (bunnies without seeds). */
export interface StoredCrawl {
  frontier: FrontierSettings;
  /** The crawl's link rules and seeds (settingsForBunnies), when the process that set them gave any. */
  rules: JsonObject | null;
}

export interface OpenedCrawl {
  id: number;
  /** The settings this process runs with. */
  settings: FrontierSettings;
  rules: JsonObject | null;
  /** True when they were taken from the crawl row (another process set them). */
  joined: boolean;
}

/**
 * Finds or makes the crawl named `name`. A process that joins takes the settings the
 * crawl row holds, if any; any other process makes its own settings the crawl's (the
 * last one to start sets --max-pages, as with the embedded store).
 */
export async function openCrawl(
  db: Database,
  name: string,
  settings: FrontierSettings,
  rules: JsonObject | null,
  join: boolean,
  now: number,
): Promise<OpenedCrawl> {
  return db.transaction(async (q) => {
    await q(`INSERT INTO crawls (name, created) VALUES ($1, $2) ON CONFLICT (name) DO NOTHING`, [name, now]);
    const [row] = await q<{ id: number; settings: StoredJson | null }>(
      `SELECT id, settings FROM crawls WHERE name = $1 FOR UPDATE`,
      [name],
    );
    const { id, settings: stored } = row as { id: number; settings: StoredJson | null };
    await q(CREATE_SLOTS, [id]);
    if (join && stored !== null) {
      return { id, settings: fromJson(stored.frontier), rules: stored.rules, joined: true };
    }
    const json: StoredJson = { frontier: toJson(settings), rules: rules ?? stored?.rules ?? null };
    await q(`UPDATE crawls SET max_pages = $2, settings = $3 WHERE id = $1`, [
      id,
      Number.isFinite(settings.maxPages) ? settings.maxPages : null,
      JSON.stringify(json),
    ]);
    return { id, settings, rules: json.rules, joined: false };
  });
}

interface StoredJson {
  frontier: Record<string, unknown>;
  rules: JsonObject | null;
}

/** JSON has no Infinity: "no limit" is kept as null. */
function toJson(s: FrontierSettings): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(s).map(([k, v]) => [k, v === Number.POSITIVE_INFINITY ? null : v]),
  );
}

function fromJson(j: Record<string, unknown>): FrontierSettings {
  return Object.fromEntries(
    Object.entries(j).map(([k, v]) => [k, v === null ? Number.POSITIVE_INFINITY : v]),
  ) as unknown as FrontierSettings;
}
