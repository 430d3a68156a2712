import pg from 'pg';

/** One connection to a benchmark's database for `work`, closed after it whatever happens. */
export async function withClient<T>(database: string, work: (c: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: database });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}
