import { existsSync } from 'node:fs';
import { Command } from 'commander';
import { checkDataDir } from '../data-dir/data-dir.js';
import { layoutOf } from '../data-dir/layout.js';
import { count } from '../english.js';
import { DataDirError } from '../errors.js';
import { DEFAULTS } from '../options/options.js';
import { EXIT } from './exit-codes.js';

/** `cobweb report [DIR]`: DIR/report.html from pages.jsonl and the store, to open with no server. */
export function reportCommand(outcome: { code: number }): Command {
  return new Command('report')
    .description('write DIR/report.html: a static page of a finished or stopped crawl (opens with no server)')
    .argument('[dir]', "the crawl's --data folder", DEFAULTS.data)
    .action(async (dir: string) => {
      const layout = layoutOf(dir);
      // Asked first: checkDataDir's own refusals speak of a --data to give, which report has not.
      if (!existsSync(layout.marker) || checkDataDir(layout) !== 'cobweb') {
        throw new DataDirError(
          `${layout.root} holds no cobweb crawl (no cobweb.json); give cobweb report the folder a crawl wrote (its --data)`,
        );
      }
      const { writeReport } = await import('../console/report.js');
      const { file, report } = await writeReport(layout);
      process.stdout.write(
        `cobweb: report of ${count(report.pages.lines, 'pages.jsonl line')} written to ${file}\n`,
      );
      outcome.code = EXIT.ok;
    });
}
