import { writeFileSync } from 'node:fs';
import type { DataLayout } from '../data-dir/layout.js';
import { peekStore, type StoreTotals } from '../frontier/sqlite/peek.js';
import { VERSION } from '../version.js';
import { assetText } from './assets.js';
import { type ReportData, reportData } from './report-data.js';

/** What report.html is made of: the data it shows, with where and when. */
export interface Report {
  data: string;
  madeAt: string;
  version: string;
  store: StoreTotals | null;
  pages: ReportData;
}

/**
 * `cobweb report DIR`: DIR/report.html, a static snapshot of a finished or stopped crawl
 * made from pages.jsonl and the store. One file: uPlot, the styles, the script and the
 * data are inlined, so it opens from disk with no server behind it.
 */
export async function writeReport(layout: DataLayout): Promise<{ file: string; report: Report }> {
  const report: Report = {
    data: layout.root,
    madeAt: new Date().toISOString(),
    version: VERSION,
    store: peekStore(layout.store),
    pages: await reportData(layout.pages, layout.refused),
  };
  const file = layout.report;
  writeFileSync(file, reportHtml(report));
  return { file, report };
}

/**
 * The report's own styles, beside the console's: the depth bars, and the biggest pages'
 * table laid out to its box (the URL column takes what is left and gives way).
 */
const REPORT_CSS = `
.depth-bars { display: flex; align-items: stretch; gap: 3px; height: 180px; }
.depth-bars .bar { flex: 1 1 0; min-width: 0; display: flex; flex-direction: column; justify-content: flex-end; align-items: center; }
.depth-bars .fill { align-self: stretch; background: #1565c0; min-height: 1px; }
.depth-bars .value, .depth-bars .label { font-size: 11px; color: var(--muted); white-space: nowrap; }
#biggest { table-layout: fixed; }
#biggest th:nth-child(1) { width: 6.5em; }
#biggest th:nth-child(2) { width: 4.5em; }
#biggest th:nth-child(3) { width: 8em; }
#biggest td { overflow: hidden; text-overflow: ellipsis; }
#biggest td.url { max-width: none; }
`;

/** JSON that cannot end the <script> element it sits in. */
function scriptJson(value: unknown): string {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');
}

/** Text that cannot end the <style> or <script> element it sits in. */
function inline(text: string, tag: 'style' | 'script'): string {
  return text.replace(new RegExp(`</${tag}`, 'gi'), `<\\/${tag}`);
}

export function reportHtml(report: Report): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>cobweb report</title>
<link rel="icon" href="data:,">
<style>${inline(assetText('uPlot.min.css'), 'style')}</style>
<style>${inline(assetText('console.css'), 'style')}</style>
<style>${REPORT_CSS}</style>
</head>
<body>
<header><h1>cobweb <span>report</span></h1><span id="made" class="muted"></span></header>
<section id="counters" class="counters"></section>
<section class="charts">
  <figure><figcaption>Pages per second</figcaption><div id="chart-timeline" class="chart"></div></figure>
  <figure><figcaption>Depth histogram (pages fetched, by hops from a seed)</figcaption><div id="chart-depth" class="chart depth-bars"></div></figure>
</section>
<section class="tables">
  <div><h2>Statuses</h2><table id="statuses"></table></div>
  <div><h2>Errors and refusals</h2><table id="errors"></table></div>
  <div><h2>Content types</h2><table id="types"></table></div>
  <div><h2>Pages and errors per host</h2><table id="hosts"></table></div>
  <div><h2>Slowest hosts</h2><table id="slowest"></table></div>
  <div><h2>Biggest pages</h2><table id="biggest"></table></div>
</section>
<script id="report-data" type="application/json">${scriptJson(report)}</script>
<script>${inline(assetText('uPlot.iife.min.js'), 'script')}</script>
<script>${inline(assetText('common.js'), 'script')}</script>
<script>${inline(assetText('report.js'), 'script')}</script>
</body>
</html>
`;
}
