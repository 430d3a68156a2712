import type { LeaseId } from '../types.js';

/**
 * A lease id is the link's row id and how many times the row has been handed out:
 * id x 2^20 + (leases mod 2^20). It names one hand-out, so a completion of an earlier
 * one (expired and handed on) matches nothing, and it is found through the primary key:
 * no index or sequence of its own to keep up at every claim. Row ids stay below 2^33.
 */
const GENERATIONS = 1048576;

/** The lease id of a leased row, in SQL (`table`: the row's alias in the statement). */
export function leaseIdSql(table?: string): string {
  const t = table === undefined ? '' : `${table}.`;
  return `(${t}id * ${GENERATIONS} + ${t}leases % ${GENERATIONS})`;
}

export const LEASE_ID = leaseIdSql();

/** The rows the lease ids name (each still to be checked against LEASE_ID). */
export function rowIdsOf(ids: readonly LeaseId[]): number[] {
  return ids.map((id) => Math.floor(id / GENERATIONS));
}
