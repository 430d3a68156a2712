import { randomBytes, timingSafeEqual } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * The server's token: --token, else COBWEB_TOKEN, else the one in DATA/token, else a new
 * one written there (mode 0600). `generated` says whether it was just made (the server
 * prints it once).
 */
export function serverToken(
  dataDir: string,
  given: string | undefined,
): { token: string; generated: boolean } {
  const chosen = given ?? process.env.COBWEB_TOKEN;
  if (chosen !== undefined && chosen !== '') return { token: chosen, generated: false };
  const file = join(dataDir, 'token');
  if (existsSync(file)) {
    const saved = readFileSync(file, 'utf8').trim();
    if (saved !== '') return { token: saved, generated: false };
  }
  const token = randomBytes(24).toString('base64url');
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  return { token, generated: true };
}

/** Compares in constant time, so the answer's timing says nothing of the token. */
export function tokenMatches(expected: string, given: string): boolean {
  const a = Buffer.from(expected);
  const b = Buffer.from(given);
  return a.length === b.length && timingSafeEqual(a, b);
}
