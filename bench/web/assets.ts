/**
 * The files a realistic page names for showing it (web/realistic-render.ts): its
 * stylesheet, script, font and icon, the same on every page of a site, at sizes such
 * files have. Served so that a crawl with --requisites fetches real bodies, not 404s.
 */
const ASSET_SIZES: Readonly<Record<string, { type: string; bytes: number }>> = {
  '/assets/site.css': { type: 'text/css; charset=utf-8', bytes: 30_000 },
  '/assets/app.js': { type: 'text/javascript; charset=utf-8', bytes: 80_000 },
  '/assets/font.woff2': { type: 'font/woff2', bytes: 40_000 },
  '/favicon.ico': { type: 'image/x-icon', bytes: 5_000 },
};

const bodies = new Map<string, Buffer>();

/** The asset at path, or undefined: one body per path, built once. */
export function assetAt(path: string): { type: string; body: Buffer } | undefined {
  const asset = ASSET_SIZES[path];
  if (asset === undefined) return undefined;
  let body = bodies.get(path);
  if (body === undefined) {
    // Printable filler: a text asset stays text; the binary ones need no meaning.
    body = Buffer.alloc(asset.bytes, '/* asset */\n');
    bodies.set(path, body);
  }
  return { type: asset.type, body };
}
