// Where the PostgreSQL set-up's database spends its time, statement by statement
// (BENCH_SCALE_PG_STATEMENTS=1): pg_stat_statements loaded in the benchmark's cluster,
// planning counted beside execution, read once the set-up has ended.
import { withClient } from '../pg-client.js';

/** Server settings that load pg_stat_statements (it needs a restart, so they are given at start). */
export const STATEMENT_SETTINGS: Record<string, string> = {
  shared_preload_libraries: 'pg_stat_statements',
  'pg_stat_statements.track_planning': 'on',
  'pg_stat_statements.max': '1000',
};

/** Makes the view readable in the set-up's database and starts counting from zero. */
export async function startCountingStatements(database: string): Promise<void> {
  await withClient(database, async (c) => {
    await c.query('CREATE EXTENSION IF NOT EXISTS pg_stat_statements');
    await c.query('SELECT pg_stat_statements_reset()');
  });
}

interface StatementRow {
  query: string;
  calls: string;
  plan_ms: number;
  exec_ms: number;
}

/** The statements that took most of the database's time, per 1,000 pages fetched, as a markdown table. */
export async function statementTable(database: string, pages: number, top = 15): Promise<string> {
  const rows = await withClient(database, async (c) => {
    const r = await c.query<StatementRow>(
      `SELECT query, calls::text AS calls, total_plan_time AS plan_ms, total_exec_time AS exec_ms
       FROM pg_stat_statements WHERE dbid = (SELECT oid FROM pg_database WHERE datname = current_database())
       ORDER BY total_plan_time + total_exec_time DESC`,
    );
    return r.rows;
  });
  const total = rows.reduce((sum, r) => sum + r.plan_ms + r.exec_ms, 0);
  const per1000 = (n: number) => (pages === 0 ? '-' : ((n * 1000) / pages).toFixed(1));
  const lines = [
    `Database time by statement (pg_stat_statements, waits included; ${(total / 1000).toFixed(1)} s in all over ${pages} pages):`,
    '',
    '| statement | calls per 1,000 pages | plan ms each | run ms each | share of the time |',
    '|---|---|---|---|---|',
  ];
  for (const r of rows.slice(0, top)) {
    const calls = Number(r.calls);
    const text = r.query.replace(/\s+/g, ' ').trim();
    const short = text.length > 90 ? `${text.slice(0, 87)}...` : text;
    lines.push(
      `| \`${short.replaceAll('|', '\\|').replaceAll('`', "'")}\` | ${per1000(calls)} | ${(r.plan_ms / calls).toFixed(2)} | ${(r.exec_ms / calls).toFixed(2)} | ${((100 * (r.plan_ms + r.exec_ms)) / total).toFixed(1)}% |`,
    );
  }
  return lines.join('\n');
}
