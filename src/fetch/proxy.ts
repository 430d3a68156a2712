/**
 * Which proxy a request goes through: --proxy for every scheme, else the environment's
 * HTTPS_PROXY (https:// URLs) and HTTP_PROXY (http:// URLs), lowercase names too; a
 * host NO_PROXY names goes direct either way, as curl and undici's EnvHttpProxyAgent do.
 */
export interface ProxyChoice {
  http: string | null;
  https: string | null;
  /** NO_PROXY's entries: "*", "example.com" (and its subdomains), ".example.com", "host:port". */
  noProxy: readonly { host: string; port: string | null }[];
}

export const NO_PROXY: ProxyChoice = { http: null, https: null, noProxy: [] };

function env(e: NodeJS.ProcessEnv, name: string): string | null {
  const v = e[name] ?? e[name.toLowerCase()];
  return v === undefined || v.trim() === '' ? null : v.trim();
}

/** The proxies from the option (for both schemes) or the environment. */
export function proxyChoiceOf(proxy: string | undefined, e: NodeJS.ProcessEnv = process.env): ProxyChoice {
  const noProxy = (env(e, 'NO_PROXY') ?? '')
    .split(/[\s,]+/)
    .filter((entry) => entry !== '')
    .map((entry) => {
      const m = /^(.*?)(?::(\d+))?$/.exec(entry.toLowerCase()) as RegExpExecArray;
      return { host: (m[1] as string).replace(/^\*?\./, ''), port: m[2] ?? null };
    });
  if (proxy !== undefined) return { http: proxy, https: proxy, noProxy };
  const http = env(e, 'HTTP_PROXY');
  return { http, https: env(e, 'HTTPS_PROXY') ?? http, noProxy };
}

/** The proxy for a URL, or null to go direct. */
export function proxyFor(url: URL, choice: ProxyChoice): string | null {
  const proxy = url.protocol === 'https:' ? choice.https : choice.http;
  if (proxy === null) return null;
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port || (url.protocol === 'https:' ? '443' : '80');
  for (const entry of choice.noProxy) {
    if (entry.host === '*') return null;
    if (entry.port !== null && entry.port !== port) continue;
    if (host === entry.host || host.endsWith(`.${entry.host}`)) return null;
  }
  return proxy;
}

/** A proxy's URL as the WARC record names it: without the user and password it logs in with. */
export function proxyShown(proxy: string): string {
  const u = new URL(proxy);
  return `${u.protocol}//${u.host}`;
}
