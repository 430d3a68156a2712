import { availableParallelism, cpus, totalmem } from 'node:os';

/** One line of a benchmark table; a row with only `run` is a note (a warning, a failed contender). */
export interface TableRow {
  run: string;
  pages?: number;
  seconds?: number;
  /** The median round's rate. */
  pagesPerSec?: number;
  /** The slowest and the fastest round's rates. */
  slowest?: number;
  fastest?: number;
  peakRssBytes?: number;
  /** CPU seconds of all the run's processes per 1,000 pages: the median round's. */
  cpuPerThousandPages?: number;
  /** The lowest and highest 1-minute load average the rounds started under. */
  loads?: [number, number];
}

export function describeMachine(): string {
  const model = cpus()[0]?.model.trim() ?? 'unknown cpu';
  const memoryGiB = (totalmem() / 2 ** 30).toFixed(1);
  return `machine: ${model}, ${availableParallelism()} cores, ${memoryGiB} GiB RAM, node ${process.version}, ${process.platform}/${process.arch}`;
}

export function markdownTable(rows: readonly TableRow[]): string {
  const lines = [
    '| run | pages | seconds | pages/s | rounds (pages/s) | CPU s / 1,000 pages | peak RSS (MiB) | load at start |',
    '|---|---|---|---|---|---|---|---|',
  ];
  for (const row of rows) {
    const spread =
      row.slowest === undefined || row.fastest === undefined
        ? '-'
        : `${format(row.slowest, 0)}-${format(row.fastest, 0)}`;
    const loads = row.loads === undefined ? '-' : `${format(row.loads[0], 1)}-${format(row.loads[1], 1)}`;
    const cells = [
      row.run,
      format(row.pages, 0),
      format(row.seconds, 2),
      format(row.pagesPerSec, 0),
      spread,
      format(row.cpuPerThousandPages, 2),
      format(row.peakRssBytes === undefined ? undefined : row.peakRssBytes / 2 ** 20, 1),
      loads,
    ];
    lines.push(`| ${cells.join(' | ')} |`);
  }
  return lines.join('\n');
}

function format(value: number | undefined, digits: number): string {
  return value === undefined || !Number.isFinite(value) ? '-' : value.toFixed(digits);
}
