/** The server settings of the benchmark's cluster: durable commits (fsync on), memory for a 10^6-URL table. */
export const PG_SETTINGS: Record<string, string> = {
  shared_buffers: '512MB',
  max_wal_size: '4GB',
  checkpoint_timeout: '15min',
};
