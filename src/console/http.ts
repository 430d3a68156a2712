import type { IncomingMessage, ServerResponse } from 'node:http';
import { assets } from './assets.js';
import { tokenMatches } from './token.js';
import type { ConsoleActions, SeedsAdded } from './types.js';

/** The header an action carries the token in: a custom header, so another site's page cannot send it. */
export const TOKEN_HEADER = 'x-cobweb-token';

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
  events(res: ServerResponse): boolean;
  actions: ConsoleActions;
  token: string;
  /** Where the token is, for the refusal's message. */
  tokenHint: string;
}

/** Answers one request: the page and its files, /metrics, /status, /events, and the actions (POST, with the token). */
export async function route(req: IncomingMessage, res: ServerResponse, r: Routes): Promise<void> {
  const path = (req.url ?? '/').split('?')[0] ?? '/';
  const method = req.method ?? 'GET';
  if (path.startsWith('/api/')) {
    if (method !== 'POST') return send(res, 405, { error: 'actions are POST requests' }, { allow: 'POST' });
    return action(req, res, path.slice('/api/'.length), r);
  }
  if (method !== 'GET' && method !== 'HEAD')
    return send(res, 405, { error: 'only GET here' }, { allow: 'GET' });
  if (path === '/metrics') {
    const m = await r.metrics();
    res.writeHead(200, { ...HEADERS, 'content-type': m.type, 'cache-control': 'no-store' }).end(m.text);
    return;
  }
  if (path === '/status') return send(res, 200, await r.status());
  if (path === '/events') {
    if (!r.events(res)) send(res, 503, { error: 'too many pages are watching; close one' });
    return;
  }
  const name =
    path === '/' ? 'index.html' : path.startsWith('/assets/') ? path.slice('/assets/'.length) : null;
  const asset = name === null || name === 'report.js' ? undefined : assets().get(name);
  if (asset === undefined) return send(res, 404, { error: `nothing at ${path}` });
  res.writeHead(200, { ...HEADERS, 'content-type': asset.type, 'cache-control': 'no-cache' }).end(asset.body);
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
      req.resume();
      return send(res, 200, { ok: true });
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
