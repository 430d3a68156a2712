import { addressBudget } from '../host-row.js';
import { settingsForHost } from '../policy/host-rules.js';
import { afterFetch, mergeBudgets } from '../policy/politeness.js';
import type { FetchReport, Release } from '../types.js';
import type { HostTable } from './host-table.js';
import { leaseOf } from './leases.js';
import type { Store } from './store.js';
import type { Tx } from './tx.js';

/** The fetch is over: its host's budget learns from the report and frees the slot. */
export function applyRelease(s: Store, r: Release, tx: Tx): void {
  const lease = leaseOf(s, r.leaseId, tx);
  if (lease === undefined || lease.released === 1) return;
  // Still counted in flight while the report is applied: a host moving to its address
  // takes this fetch along, and the report then frees its slot there.
  applyReport(s, lease.host, r.report, tx);
  if (lease.held === undefined) s.st.markReleased.run(lease.seq);
  else lease.held.released = true;
}

/** One fetch's politeness facts: the budget's gap, hold or back-off, and its free slot. */
export function applyReport(s: Store, host: string, report: FetchReport, tx: Tx): void {
  const h = tx.hosts.host(host);
  if (s.settings.key === 'ip' && report.address != null) moveToAddress(s, h, report.address, tx);
  const settings = settingsForHost(s.settings, host);
  tx.hosts.setBudget(h.budget, afterFetch(tx.hosts.budget(h.budget), report, settings, tx.now));
}

/**
 * --politeness-key ip: the host was found at `address`, so from now on it shares one
 * budget with every other host there. Its fetches in flight move along with it.
 */
function moveToAddress(s: Store, h: ReturnType<HostTable['host']>, address: string, tx: Tx): void {
  const key = addressBudget(address);
  if (h.budget === key) return;
  const inFlight = (s.st.leasedOfHost.get(h.host) as number) + (s.held?.inFlightOn(h.host) ?? 0);
  const from = tx.hosts.budget(h.budget);
  tx.hosts.setBudget(h.budget, { ...from, inFlight: Math.max(0, from.inFlight - inFlight) });
  const moving = { ...from, inFlight };
  tx.hosts.setBudget(key, mergeBudgets(tx.hosts.budget(key), moving));
  h.budget = key;
  tx.hosts.touch(h);
}
