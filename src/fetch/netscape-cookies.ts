import type { Cookie } from 'tough-cookie';
import { toughCookie } from './tough-cookie.js';

/**
 * A Netscape cookies.txt, as curl (-c) and wget (--save-cookies) write it: one cookie a
 * line, seven tab-separated fields (domain, subdomains too, path, secure, expiry in epoch
 * seconds with 0 for a session cookie, name, value); `#` lines are comments, except the
 * `#HttpOnly_` prefix curl puts before an HttpOnly cookie's domain.
 */
export function parseNetscapeCookies(text: string): { cookies: Cookie[]; bad: number[] } {
  const cookies: Cookie[] = [];
  const bad: number[] = [];
  text.split(/\r?\n/).forEach((raw, i) => {
    let line = raw;
    let httpOnly = false;
    if (line.startsWith('#HttpOnly_')) {
      httpOnly = true;
      line = line.slice('#HttpOnly_'.length);
    } else if (line.startsWith('#') || line.trim() === '') return;
    const f = line.split('\t');
    const [domain, subdomains, path, secure, expires, name] = f;
    const seconds = Number(expires);
    if (f.length < 7 || !domain || !name || !path?.startsWith('/') || !Number.isFinite(seconds)) {
      bad.push(i + 1);
      return;
    }
    cookies.push(
      new (toughCookie().Cookie)({
        key: name,
        value: f.slice(6).join('\t'),
        domain: domain.replace(/^\./, '').toLowerCase(),
        path,
        secure: secure?.toUpperCase() === 'TRUE',
        httpOnly,
        hostOnly: subdomains?.toUpperCase() !== 'TRUE',
        expires: seconds > 0 ? new Date(seconds * 1000) : 'Infinity',
        creation: new Date(),
      }),
    );
  });
  return { cookies, bad };
}
