import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  type ConsoleAccess,
  carriesToken,
  hostAllowed,
  originAllowed,
  sessionCookie,
  TOKEN_HEADER,
} from './access.js';
import { assets } from './assets.js';
import { tokenMatches } from './token.js';
import type { ConsoleActions, SeedsAdded } from './types.js';

export { TOKEN_HEADER } from './access.js';

/** The most seed URLs one request may add, and the most bytes of its body. */
const MAX_SEEDS = 1000;
const MAX_BODY = 256 * 1024;

const HEADERS = {
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
  // Only our own files; no framing, so no other page can put our buttons under its clicks.
  'content-security-policy':
    "default-src 'self'; img-src 'self' data:; style-src 'self' 'unsafe-inline'; frame-ancestors 'none'",
};

/** What the routes answer from: the console's parts, as plain functions. */
export interface Routes {
  metrics(): Promise<{ type: string; text: string }>;
  status(): Promise<unknown>;
  /** Takes the response as an event stream; false when too many watch already. */
  events(res: ServerResponse): Promise<boolean>;
  actions: ConsoleActions;
  token: string;
  /** Where the token is, for the refusal's message. */
  tokenHint: string;
  /** The address the console listens on, and the port it got. */
  listenHost: string;
  port: number;
  access: ConsoleAccess;
  /** Hears each request refused for its Host or its Origin (what, and from where). */
  refused(what: string, from: string): void;
}

/** Where the token is, said to whoever has not got it: not the data folder's path, which is none of their business. */
const TOKEN_WHERE = 'the file token in its data folder, or the --token or COBWEB_TOKEN it was started with';

/** The page and its files: the same for every install, served to anyone the Host check lets in, so the page can ask for the token. */
function assetOf(path: string): string | null {
  if (path === '/') return 'index.html';
  if (!path.startsWith('/assets/')) return null;
  const name = path.slice('/assets/'.length);
  return name === 'report.js' ? null : name;
}

/**
 * Answers one request: the page and its files, /metrics, /status, /events, and the
 * actions (POST, with the token). First the Host must name this console and a POST's
 * Origin be its own (DNS rebinding, another site's page); then, where every request needs
 * the token, everything but the page's own files needs it.
 */
export async function route(req: IncomingMessage, res: ServerResponse, r: Routes): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const method = req.method ?? 'GET';
  const from = req.socket.remoteAddress ?? '?';
  const host = req.headers.host;
  if (!hostAllowed(host, r.listenHost, r.access)) {
    req.resume();
    r.refused(`Host ${host === undefined ? '(none)' : JSON.stringify(host)}`, from);
    return send(res, 421, {
      error: `this console does not answer to the name ${host ?? '(none)'}: use its address, or start it with --http-allow-host NAME`,
    });
  }
  const origin = req.headers.origin;
  if (method === 'POST' && !originAllowed(origin, host)) {
    req.resume();
    r.refused(`Origin ${JSON.stringify(origin)} on a POST`, from);
    return send(res, 403, { error: `a request from another page (Origin ${origin}) is refused` });
  }
  if (path.startsWith('/api/')) {
    if (method !== 'POST') return send(res, 405, { error: 'actions are POST requests' }, { allow: 'POST' });
    return action(req, res, path.slice('/api/'.length), r);
  }
  if (method !== 'GET' && method !== 'HEAD')
    return send(res, 405, { error: 'only GET here' }, { allow: 'GET' });
  const name = assetOf(path);
  if (name === null && needsToken(path, r.access) && !carriesToken(req, r.token)) {
    return send(
      res,
      401,
      {
        error: `this console needs the token (${TOKEN_WHERE}): unlock the page, or send it in the ${TOKEN_HEADER} header or as Authorization: Bearer TOKEN`,
        tokenHint: TOKEN_WHERE,
      },
      { 'www-authenticate': 'Bearer realm="cobweb"' },
    );
  }
  if (path === '/metrics') {
    const m = await r.metrics();
    res.writeHead(200, { ...HEADERS, 'content-type': m.type, 'cache-control': 'no-store' }).end(m.text);
    return;
  }
  if (path === '/status') return send(res, 200, await r.status());
  if (path === '/events') {
    if (!(await r.events(res))) send(res, 503, { error: 'too many pages are watching; close one' });
    return;
  }
  const asset = name === null ? undefined : assets().get(name);
  if (asset === undefined) return send(res, 404, { error: `nothing at ${path}` });
  res.writeHead(200, { ...HEADERS, 'content-type': asset.type, 'cache-control': 'no-cache' }).end(asset.body);
}

/** Whether a read needs the token: everywhere off loopback, /metrics unless --metrics-open left it open. */
function needsToken(path: string, access: ConsoleAccess): boolean {
  if (!access.tokenEverywhere) return false;
  return !(path === '/metrics' && access.metricsOpen);
}

async function action(req: IncomingMessage, res: ServerResponse, name: string, r: Routes): Promise<void> {
  const given = req.headers[TOKEN_HEADER];
  if (typeof given !== 'string' || given === '') {
    req.resume();
    return send(res, 401, {
      error: `this action needs the token (${r.tokenHint}), in the ${TOKEN_HEADER} header`,
    });
  }
  if (!tokenMatches(r.token, given)) {
    req.resume();
    return send(res, 403, { error: `the token is wrong: use the one in ${r.tokenHint}` });
  }
  switch (name) {
    case 'check':
      // The page's unlock: the cookie lets its reads (/events, /status) in from now on.
      req.resume();
      return send(res, 200, { ok: true }, { 'set-cookie': sessionCookie(r.token, r.port) });
    case 'pause':
    case 'resume':
    case 'stop':
      req.resume();
      r.actions[name]();
      return send(res, 200, { ok: true });
    case 'seeds': {
      const urls = await seedsOf(req);
      if (typeof urls === 'string') return send(res, 400, { error: urls });
      const added: SeedsAdded = await r.actions.addSeeds(urls);
      return send(res, 200, { ok: true, ...added });
    }
    default:
      req.resume();
      return send(res, 404, { error: `no action ${name}` });
  }
}

/** The body of POST /api/seeds: `{"urls": [...]}`; a message when it is not that. */
async function seedsOf(req: IncomingMessage): Promise<string[] | string> {
  let body = '';
  for await (const chunk of req) {
    body += String(chunk);
    if (body.length > MAX_BODY) return `the body is larger than ${MAX_BODY} bytes`;
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return 'the body must be JSON: {"urls": ["https://example.com/"]}';
  }
  const urls = (parsed as { urls?: unknown } | null)?.urls;
  if (!Array.isArray(urls) || !urls.every((u) => typeof u === 'string') || urls.length === 0) {
    return 'the body must be JSON: {"urls": ["https://example.com/"]}, with at least one URL';
  }
  if (urls.length > MAX_SEEDS) return `at most ${MAX_SEEDS} URLs at once`;
  return urls as string[];
}

function send(res: ServerResponse, code: number, body: unknown, extra: Record<string, string> = {}): void {
  res
    .writeHead(code, {
      ...HEADERS,
      ...extra,
      'content-type': 'application/json; charset=utf-8',
      'cache-control': 'no-store',
    })
    .end(`${JSON.stringify(body)}\n`);
}
