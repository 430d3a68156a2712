import type { StoredCookie } from '../types.js';
import type { Store } from './store.js';

/** saveCookies(): each change written, a null value deleting its cookie. */
export function saveCookies(s: Store, changes: readonly StoredCookie[]): void {
  for (const c of changes) {
    if (c.value === null) s.st.deleteCookie.run(c.key);
    else s.st.putCookie.run(c.key, c.value);
  }
}
