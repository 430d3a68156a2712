import { availableParallelism, cpus, totalmem } from 'node:os';

export interface TableRow {
  run: string;
  pages: number | undefined;
  seconds: number | undefined;
  pagesPerSec: number | undefined;
  peakRssBytes: number | undefined;
}

export function describeMachine(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown cpu';
  const memoryGiB = (totalmem() / 2 ** 30).toFixed(1);
  return `machine: ${model}, ${availableParallelism()} cores, ${memoryGiB} GiB RAM, node ${process.version}, ${process.platform}/${process.arch}`;
}

export function markdownTable(rows: readonly TableRow[]): string {
  const lines = ['| run | pages | seconds | pages/s | peak RSS (MiB) |', '|---|---|---|---|---|'];
  for (const row of rows) {
    const cells = [
      row.run,
      format(row.pages, 0),
      format(row.seconds, 2),
      format(row.pagesPerSec, 0),
      format(row.peakRssBytes === undefined ? undefined : row.peakRssBytes / 2 ** 20, 1),
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function format(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);
}
