import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

/**
 * The page's files, served by the process itself (no CDN): the page, its script and
 * styles from assets/ beside this file (the build copies src/console/assets to dist), and uPlot
 * from its npm package. Read once, kept in memory.
 */
export interface Asset {
  type: string;
  body: Buffer;
}

const ASSETS_DIR = new URL('./assets/', import.meta.url);
const require = createRequire(import.meta.url);

const OWN: Record<string, string> = {
  'index.html': 'text/html; charset=utf-8',
  'console.css': 'text/css; charset=utf-8',
  'common.js': 'text/javascript; charset=utf-8',
  'console.js': 'text/javascript; charset=utf-8',
  'report.js': 'text/javascript; charset=utf-8',
};

const UPLOT: Record<string, string> = {
  'uPlot.iife.min.js': 'text/javascript; charset=utf-8',
  'uPlot.min.css': 'text/css; charset=utf-8',
};

let cache: Map<string, Asset> | null = null;

/** Every asset by its name under /assets/ (index.html is the page at /). */
export function assets(): Map<string, Asset> {
  if (cache !== null) return cache;
  const all = new Map<string, Asset>();
  for (const [name, type] of Object.entries(OWN)) {
    all.set(name, { type, body: readFileSync(fileURLToPath(new URL(name, ASSETS_DIR))) });
  }
  for (const [name, type] of Object.entries(UPLOT)) {
    all.set(name, { type, body: readFileSync(require.resolve(`uplot/dist/${name}`)) });
  }
  cache = all;
  return all;
}

/** One asset's text (the report inlines them). */
export function assetText(name: string): string {
  const a = assets().get(name);
  if (a === undefined) throw new Error(`no console asset ${name}`);
  return a.body.toString('utf8');
}
