import type { Pool, PoolClient } from 'pg';
import { fingerprint } from '../../url/fingerprint.js';

/**
 * The schema, as versioned migrations. Each runs once per database, in order, in its
 * own transaction; applied versions are kept in cobweb_migrations. A migration once
 * released is never edited: a change is a new one.
 */
export interface Migration {
  version: number;
  name: string;
  /** The migration's statements; or, for one that needs JavaScript, `run`. */
  sql?: string;
  /** Runs inside the migration's transaction, on its connection. */
  run?: (client: PoolClient) => Promise<void>;
}

export const MIGRATIONS: readonly Migration[] = [
  {
    version: 1,
    name: 'crawls, crawlers, crawler_links, hosts, sites',
    sql: `
      -- One row per crawl (--crawl NAME): its page budget and the settings joining bunnies take.
      CREATE TABLE crawls (
        id serial PRIMARY KEY,
        name text NOT NULL UNIQUE,
        created bigint NOT NULL,
        max_pages double precision,
        settings jsonb
      );

      -- The crawl's counts, spread over slots (a backend adds to its own, pid mod 32): every
      -- lease and completion changes them, and one row would make all of them take turns.
      CREATE TABLE crawl_counts (
        crawl integer NOT NULL REFERENCES crawls (id),
        slot integer NOT NULL,
        queued bigint NOT NULL DEFAULT 0,
        claimed bigint NOT NULL DEFAULT 0,
        retrying bigint NOT NULL DEFAULT 0,
        done bigint NOT NULL DEFAULT 0,
        failed bigint NOT NULL DEFAULT 0,
        rejected bigint NOT NULL DEFAULT 0,
        stale bigint NOT NULL DEFAULT 0,
        expired bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (crawl, slot)
      );

      -- The seed's crawler table: an id from a sequence for every crawling process.
      CREATE TABLE crawlers (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        crawl integer NOT NULL REFERENCES crawls (id),
        name text NOT NULL,
        host text NOT NULL,
        pid integer NOT NULL,
        started bigint NOT NULL,
        last_seen bigint NOT NULL,
        left_at bigint
      );
      CREATE INDEX crawlers_active ON crawlers (crawl) WHERE left_at IS NULL;

      -- One row per URL a crawl has met; (crawl, fingerprint) is the crawl's seen set.
      CREATE TABLE crawler_links (
        id bigint GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        crawl integer NOT NULL,
        fingerprint bigint NOT NULL,
        url text NOT NULL,
        host text NOT NULL,
        depth integer NOT NULL,
        via text,
        redirects smallint NOT NULL DEFAULT 0,
        kind smallint NOT NULL DEFAULT 0,
        status smallint NOT NULL,
        crawler_id bigint,
        holder bigint,
        has_form boolean,
        leases integer NOT NULL DEFAULT 0,
        lease_expires bigint,
        released boolean NOT NULL DEFAULT false,
        due_at bigint,
        attempts integer NOT NULL DEFAULT 0,
        error text,
        added_at bigint NOT NULL,
        updated_at bigint,
        UNIQUE (crawl, fingerprint)
      );
      CREATE INDEX links_queue ON crawler_links (crawl, host, depth, id) WHERE status = 0;
      CREATE INDEX links_expiry ON crawler_links (crawl, lease_expires) WHERE status = 2;
      CREATE INDEX links_retry ON crawler_links (crawl, due_at) WHERE status = 7;
      CREATE INDEX links_unlogged ON crawler_links (crawl, id) WHERE status IN (5, 6);
      CREATE INDEX links_final ON crawler_links (crawl, id) WHERE status IN (3, 4);

      -- One row per host (host[:port]) and, with --politeness-key ip, one per address
      -- (shared, host 'ip:ADDRESS'). budget names the row whose politeness columns
      -- (in_flight, next_at, gap_ms, failures) a host counts against: its own, or its
      -- address's. ready_at is readyAt() of the row's own politeness columns, so one index
      -- finds the hosts ready now, shallowest first.
      CREATE TABLE hosts (
        crawl integer NOT NULL,
        host text NOT NULL,
        budget text NOT NULL,
        shared boolean NOT NULL DEFAULT false,
        queued integer NOT NULL DEFAULT 0,
        min_depth integer NOT NULL DEFAULT 0,
        taken integer NOT NULL DEFAULT 0,
        retired boolean NOT NULL DEFAULT false,
        ready_at bigint NOT NULL DEFAULT 0,
        in_flight integer NOT NULL DEFAULT 0,
        next_at bigint NOT NULL DEFAULT 0,
        gap_ms integer NOT NULL DEFAULT 0,
        failures integer NOT NULL DEFAULT 0,
        PRIMARY KEY (crawl, host)
      );
      CREATE INDEX hosts_turn ON hosts (crawl, min_depth, ready_at) WHERE queued > 0 AND NOT retired;
      CREATE INDEX hosts_ready ON hosts (crawl, ready_at) WHERE queued > 0 AND NOT retired;
      CREATE INDEX hosts_members ON hosts (crawl, budget) WHERE budget <> host;

      CREATE TABLE sites (
        crawl integer NOT NULL,
        origin text NOT NULL,
        address text,
        first_seen bigint,
        info jsonb,
        claimed_by bigint,
        recorded boolean NOT NULL DEFAULT false,
        PRIMARY KEY (crawl, origin)
      );
    `,
  },
  {
    version: 2,
    name: 'recrawl columns (fetched_at, etag, last_modified), cookies',
    sql: `
      -- done: when it was fetched, and the validators of its response (--recrawl-after).
      ALTER TABLE crawler_links ADD COLUMN fetched_at bigint;
      ALTER TABLE crawler_links ADD COLUMN etag text;
      ALTER TABLE crawler_links ADD COLUMN last_modified text;
      -- the capture those validators stand for (its WARC-Date), which a 304 keeps
      ALTER TABLE crawler_links ADD COLUMN captured_at bigint;
      -- A URL done before: fetched at its last update, the nearest moment kept.
      UPDATE crawler_links SET fetched_at = coalesce(updated_at, added_at) WHERE status = 1;
      CREATE INDEX links_fetched ON crawler_links (crawl, fetched_at) WHERE status = 1;

      -- Each crawl's cookie jar: one row per cookie (domain;path;name), the cookie as JSON.
      CREATE TABLE cookies (
        crawl integer NOT NULL,
        key text NOT NULL,
        value text NOT NULL,
        PRIMARY KEY (crawl, key)
      );
    `,
  },
  {
    version: 3,
    name: 'crawl_counts: 256 slots',
    sql: `
      -- A transaction adds to the slot of its connection (pid mod the slots) and holds that
      -- row until it commits; with tens of crawling processes, 32 slots were shared often
      -- enough that transactions waited for each other's commits there.
      INSERT INTO crawl_counts (crawl, slot)
        SELECT c.id, s FROM crawls c CROSS JOIN generate_series(32, 255) AS s
        ON CONFLICT DO NOTHING;
    `,
  },
  {
    version: 4,
    name: 'crawler_links.fingerprint: MurmurHash3, the fingerprint of every seen set (was SHA-1)',
    run: refingerprint,
  },
  {
    version: 5,
    name: 'robots, seed_origins, allowed_addresses: decisions about hosts made once per crawl',
    sql: `
      -- robots.txt per origin, once per crawl: the entry the crawl holds (null before its
      -- first read) and the crawler reading the file now.
      CREATE TABLE robots (
        crawl integer NOT NULL REFERENCES crawls (id),
        origin text NOT NULL,
        entry jsonb,
        fetched_at bigint NOT NULL DEFAULT 0,
        expires_at bigint NOT NULL DEFAULT 0,
        read_by integer,
        read_until bigint NOT NULL DEFAULT 0,
        PRIMARY KEY (crawl, origin)
      );

      -- The crawl's seeds, wherever they were given: their origins (its scope) and the
      -- private addresses they are on (the ones it may reach).
      CREATE TABLE seed_origins (
        crawl integer NOT NULL REFERENCES crawls (id),
        origin text NOT NULL,
        PRIMARY KEY (crawl, origin)
      );
      CREATE TABLE allowed_addresses (
        crawl integer NOT NULL REFERENCES crawls (id),
        address text NOT NULL,
        PRIMARY KEY (crawl, address)
      );
    `,
  },
  {
    version: 6,
    name: 'crawler_links.rank: requisites queued after every page; hosts.min_rank',
    sql: `
      -- The queue's order (src/frontier/policy/queue-rank.ts): the depth, and for a page
      -- requisite (kind 2) a billion more (REQUISITE_RANK), so that it comes after every page
      -- of its host.
      -- Computed by PostgreSQL from depth and kind, so that no writer can set it wrong.
      ALTER TABLE crawler_links ADD COLUMN rank integer
        GENERATED ALWAYS AS (depth + CASE kind WHEN 2 THEN 1000000000 ELSE 0 END) STORED;
      DROP INDEX links_queue;
      CREATE INDEX links_queue ON crawler_links (crawl, host, rank, id) WHERE status = 0;
      -- A host's first rank, which the hosts_turn index orders hosts by (it follows the rename).
      ALTER TABLE hosts RENAME COLUMN min_depth TO min_rank;
      UPDATE hosts AS h SET min_rank = q.min_rank
        FROM (SELECT crawl, host, min(rank) AS min_rank FROM crawler_links WHERE status = 0
              GROUP BY crawl, host) AS q
        WHERE h.crawl = q.crawl AND h.host = q.host AND h.min_rank <> q.min_rank;
    `,
  },
  {
    version: 7,
    name: 'pending_links: new links of a host whose row another transaction holds',
    sql: `
      -- A completion that would queue a link of a host whose row another transaction holds
      -- leaves the link here instead of waiting for that row; whoever holds the host next
      -- queues it (src/frontier/postgres/pending-links.ts). Counted as queued meanwhile.
      CREATE TABLE pending_links (
        id bigserial PRIMARY KEY,
        crawl integer NOT NULL REFERENCES crawls (id),
        host text NOT NULL,
        fingerprint bigint NOT NULL,
        url text NOT NULL,
        depth integer NOT NULL,
        via text,
        redirects smallint NOT NULL,
        kind smallint NOT NULL
      );
      CREATE INDEX pending_links_host ON pending_links (crawl, host);
      CREATE INDEX pending_links_age ON pending_links (crawl, id);
    `,
  },
  {
    version: 8,
    name: 'crawl_reads: reads of the whole crawl that its processes share',
    sql: `
      -- A read of every host row (the consoles' host overview, the host count) costs half a
      -- second of the database at 10^5 hosts. One process reads it for the crawl and keeps
      -- the answer here; the others take that answer until fresh_until
      -- (src/frontier/postgres/shared-read.ts).
      CREATE TABLE crawl_reads (
        crawl integer NOT NULL REFERENCES crawls (id),
        name text NOT NULL,
        value jsonb,                       -- the last answer; NULL while the first is read
        fresh_until timestamptz NOT NULL,  -- read again after it (set ahead while one reads)
        PRIMARY KEY (crawl, name)
      );
    `,
  },
];

/** crawler_links rows read, fingerprinted and written per round of migration 4. */
const REFINGERPRINT_ROWS = 10_000;

/**
 * Migration 4: every link's fingerprint computed again with src/url/fingerprint.ts (the
 * hash is JavaScript, so the rows come here in batches by id). The new values go into a
 * column of their own, which then takes the old one's place and its unique constraint
 * (under the name errors.ts knows): the constraint holds over the old values throughout,
 * never over a mix of old and new ones, which could collide. Two URLs of one crawl whose
 * new fingerprints are equal (about n^2 / 2^65 for n URLs) make the constraint fail and
 * the migration roll back, leaving the database as it was.
 */
async function refingerprint(client: PoolClient): Promise<void> {
  await client.query('ALTER TABLE crawler_links ADD COLUMN fingerprint_new bigint');
  for (let last = '0'; ; ) {
    const { rows } = await client.query<{ id: string; url: string }>(
      'SELECT id::text AS id, url FROM crawler_links WHERE id > $1 ORDER BY id LIMIT $2',
      [last, REFINGERPRINT_ROWS],
    );
    if (rows.length === 0) break;
    await client.query(
      `UPDATE crawler_links AS c SET fingerprint_new = u.fp
        FROM unnest($1::int8[], $2::int8[]) AS u(id, fp) WHERE c.id = u.id`,
      [rows.map((r) => r.id), rows.map((r) => BigInt.asIntN(64, fingerprint(r.url)).toString())],
    );
    last = (rows[rows.length - 1] as { id: string }).id;
  }
  await client.query(`
    ALTER TABLE crawler_links DROP CONSTRAINT crawler_links_crawl_fingerprint_key;
    ALTER TABLE crawler_links DROP COLUMN fingerprint;
    ALTER TABLE crawler_links RENAME COLUMN fingerprint_new TO fingerprint;
    ALTER TABLE crawler_links ALTER COLUMN fingerprint SET NOT NULL;
    ALTER TABLE crawler_links ADD CONSTRAINT crawler_links_crawl_fingerprint_key UNIQUE (crawl, fingerprint);
  `);
}

/** Any number: the same one in every cobweb, so two processes starting at once take turns. */
const MIGRATION_LOCK = 0x636f62776562; // "cobweb"

/**
 * Brings the database's schema up to date. Under a session advisory lock, so that ten
 * processes starting at once migrate once: the first applies what is missing, the
 * others wait for it and find nothing to do. A database migrated by a newer cobweb is
 * refused rather than guessed at.
 */
export async function migrate(pool: Pool): Promise<void> {
  const client = await pool.connect();
  try {
    await client.query('SELECT pg_advisory_lock($1)', [MIGRATION_LOCK]);
    try {
      await client.query(`CREATE TABLE IF NOT EXISTS cobweb_migrations (
        version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())`);
      const applied = await client.query<{ version: number }>('SELECT version FROM cobweb_migrations');
      const have = new Set(applied.rows.map((r) => r.version));
      const newest = MIGRATIONS[MIGRATIONS.length - 1]?.version ?? 0;
      const ahead = [...have].filter((v) => v > newest);
      if (ahead.length > 0) {
        throw new Error(
          `the database was migrated by a newer cobweb (schema ${Math.max(...ahead)}, this one knows ${newest}); use that cobweb, or another database`,
        );
      }
      for (const m of MIGRATIONS) {
        if (have.has(m.version)) continue;
        await client.query('BEGIN');
        try {
          if (m.sql !== undefined) await client.query(m.sql);
          await m.run?.(client);
          await client.query('INSERT INTO cobweb_migrations (version, name) VALUES ($1, $2)', [
            m.version,
            m.name,
          ]);
          await client.query('COMMIT');
        } catch (err) {
          await client.query('ROLLBACK');
          throw err;
        }
      }
    } finally {
      await client.query('SELECT pg_advisory_unlock($1)', [MIGRATION_LOCK]);
    }
  } finally {
    client.release();
  }
}
