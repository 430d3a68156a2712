import { noCounts } from '../store-counts.js';
import { countsUpdate } from './counts.js';
import type { StagedLinks } from './link-inserts.js';
import { type Params, type Part, withParts } from './params.js';
import type { Tx } from './tx.js';

/**
 * Everything a call decided, written in one statement: its own parts (a completion's
 * outcomes), the new links, the changed host rows and the counts, as data-modifying
 * CTEs of one statement, so one round trip writes them all. The parts write disjoint
 * rows (PostgreSQL runs them on one snapshot and does not let two of them change one
 * row). What is left to write afterwards (a host retired after this) goes the usual way.
 */
export async function writeInOneStatement(
  tx: Tx,
  p: Params,
  parts: Readonly<Record<string, Part>>,
  links: StagedLinks | null,
): Promise<void> {
  const all: Record<string, Part> = {
    ...parts,
    ...(links?.parts ?? {}),
    host_rows: tx.hosts.writeUpdate(p),
    counts: countsUpdate(
      p,
      tx.crawl,
      tx.delta,
      links?.rejectedInserted === undefined ? {} : { rejected: links.rejectedInserted },
    ),
  };
  // The counts are in the statement now: what the transaction changes from here on starts from zero.
  Object.assign(tx.delta, noCounts());
  const head = withParts(all);
  if (head === '') return;
  const select =
    links !== null && links.select !== ''
      ? links.select
      : 'SELECT NULL::int8 AS id, NULL::text AS fp WHERE false';
  const rows = await tx.q<{ id: number; fp: string }>(`${head}${select}`, p.values);
  links?.read(rows);
}
