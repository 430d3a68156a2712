import type { StoredCookie } from '../types.js';
import type { Query } from './database.js';
import type { Tx } from './tx.js';

/** The crawl's cookie jar: one row per cookie, opaque to the store (FrontierCookies). */
export async function cookiesOf(q: Query, crawl: number): Promise<StoredCookie[]> {
  return q<StoredCookie>(`SELECT key, value FROM cookies WHERE crawl = $1`, [crawl]);
}

export async function saveCookies(tx: Tx, changes: readonly StoredCookie[]): Promise<void> {
  const gone = changes.filter((c) => c.value === null).map((c) => c.key);
  const kept = changes.filter((c) => c.value !== null);
  if (gone.length > 0) {
    await tx.q(`DELETE FROM cookies WHERE crawl = $1 AND key = ANY($2::text[])`, [tx.crawl, gone]);
  }
  if (kept.length > 0) {
    await tx.q(
      `INSERT INTO cookies (crawl, key, value) SELECT $1, k, v FROM unnest($2::text[], $3::text[]) AS u(k, v)
       ON CONFLICT (crawl, key) DO UPDATE SET value = excluded.value`,
      [tx.crawl, kept.map((c) => c.key), kept.map((c) => c.value)],
    );
  }
}
