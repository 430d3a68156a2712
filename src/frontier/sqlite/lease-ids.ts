import type { LeaseId } from '../types.js';

/**
 * A lease id is the URL's row key and how many times the row has been leased: it names
 * one hand-out, so a completion of an earlier one (expired, handed on) matches nothing.
 */
export const GENERATIONS = 2 ** 20;

export function leaseIdOf(seq: number, gen: number): LeaseId {
  return seq * GENERATIONS + (gen % GENERATIONS);
}

export function splitLeaseId(id: LeaseId): { seq: number; gen: number } {
  return { seq: Math.floor(id / GENERATIONS), gen: id % GENERATIONS };
}
