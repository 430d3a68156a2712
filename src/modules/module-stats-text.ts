import { count } from '../english.js';
import type { ModuleStats } from './api.js';

/** One module's counts as a summary and modstat say them; a module switched off says so. */
export function moduleStatsText(m: ModuleStats): string {
  const off = m.off === true ? '; switched off (it kept holding its thread past --module-timeout)' : '';
  return `${m.name}: ${count(m.calls, 'call')}, ${count(m.errors, 'error')}, ${count(m.timeouts, 'timeout')}, ${count(m.skipped, 'page')} skipped, ${m.meanMs.toFixed(2)} ms mean${off}`;
}
