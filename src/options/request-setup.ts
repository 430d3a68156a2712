import { readFileSync } from 'node:fs';
import type { Cookie } from 'tough-cookie';
import { CrawlOptionError } from '../errors.js';
import { parseNetscapeCookies } from '../fetch/netscape-cookies.js';
import { type ProxyChoice, proxyChoiceOf } from '../fetch/proxy.js';
import type { Settings } from './options.js';

/** What the request options' files and the environment say, read before anything is touched. */
export interface RequestSetup {
  /** --cookies FILE's cookies, for the jar. */
  cookies: readonly Cookie[];
  /** --ca-file's certificates, for the sites. */
  ca: readonly string[] | undefined;
  /** --proxy-ca-file's certificates, for an https:// proxy. */
  proxyCa: readonly string[] | undefined;
  proxy: ProxyChoice;
}

/**
 * Reads --cookies, --ca-file and --proxy-ca-file and picks the proxies (--proxy, else HTTP_PROXY and
 * HTTPS_PROXY, with NO_PROXY): a file that cannot be read or holds nothing usable is a
 * CrawlOptionError naming it, before the crawl touches anything.
 */
export function requestSetupOf(
  o: Pick<Settings, 'cookies' | 'caFile' | 'proxyCaFile' | 'proxy'>,
  env: NodeJS.ProcessEnv = process.env,
): RequestSetup {
  return {
    cookies: o.cookies === undefined ? [] : cookiesFile(o.cookies),
    ca: o.caFile === undefined ? undefined : caFile(o.caFile),
    proxyCa: o.proxyCaFile === undefined ? undefined : caFile(o.proxyCaFile),
    proxy: proxyChoiceOf(o.proxy, env),
  };
}

function read(file: string, what: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new CrawlOptionError(`cannot read the ${what} ${file}: ${(err as Error).message}`);
  }
}

function cookiesFile(file: string): Cookie[] {
  const { cookies, bad } = parseNetscapeCookies(read(file, 'cookies file'));
  if (bad.length > 0) {
    throw new CrawlOptionError(
      `${file}: line ${bad[0]} is not a Netscape cookie line (7 fields separated by tabs: domain, subdomains, path, secure, expiry, name, value)`,
    );
  }
  return cookies;
}

function caFile(file: string): string[] {
  const text = read(file, 'CA file');
  const certs = text.match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g) ?? [];
  if (certs.length === 0)
    throw new CrawlOptionError(`${file} holds no PEM certificate (-----BEGIN CERTIFICATE-----)`);
  return certs;
}
