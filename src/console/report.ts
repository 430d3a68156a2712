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
    pages: await reportData(layout.pages),
  };
  const file = layout.report;
  writeFileSync(file, reportHtml(report));
  return { file, report };
}

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
</head>
<body>
<header><h1>cobweb <span>report</span></h1><span id="made" class="muted"></span></header>
<section id="counters" class="counters"></section>
<section class="charts">
  <figure><figcaption>Pages per second</figcaption><div id="chart-timeline" class="chart"></div></figure>
  <figure><figcaption>Depth histogram (URLs by hops from a seed)</figcaption><div id="chart-depth" class="chart"></div></figure>
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
