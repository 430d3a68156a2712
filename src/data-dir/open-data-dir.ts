import { existsSync } from 'node:fs';
import { DataDirError } from '../errors.js';
import type { StoreSeenOptions } from '../frontier/sqlite/seen-gate.js';
import type { LogLevel } from '../output/crawl-log.js';
import { checkDataDir, clearCrawl } from './data-dir.js';
import type { DataLayout } from './layout.js';
import {
  changedLinkSettings,
  describeLinkChanges,
  type LinkSettings,
  readMarker,
  recordModuleData,
  writeMarker,
} from './marker.js';
import { ModuleDataFiles, moduleDataFile } from './module-data.js';

export interface DataDirRun {
  /** This run's link-deciding settings, for the marker. */
  settings: LinkSettings;
  fresh: boolean;
  seen?: StoreSeenOptions | undefined;
  /** The modules loaded, whose records go to `data/<name>.jsonl`. */
  modules: readonly string[];
}

export interface OpenedDataDir {
  /** The link-deciding settings that differ from the last run's. */
  changed: (keyof LinkSettings)[];
  /** The module data files that are cobweb's, for a module loaded later (a server's loadmod). */
  moduleData: ModuleDataFiles;
}

/**
 * Under the lock, before the crawl starts: the folder and its marker are checked once
 * more, --fresh clears what cobweb wrote, and the marker is written with this run's
 * settings and its modules' data files. A module whose data file is someone else's
 * stops the run here, before anything is deleted. Says in one line what changed since
 * the last run.
 */
export function openDataDir(
  layout: DataLayout,
  run: DataDirRun,
  log: (line: string, level: LogLevel) => void,
): OpenedDataDir {
  checkDataDir(layout); // again, now that no other crawl can be changing it
  // Read (and so checked) before --fresh deletes anything.
  const found = readMarker(layout);
  // A marker from before the list was kept: the files of this run's modules were cobweb's.
  const owned =
    found === null
      ? []
      : (found.moduleData ?? run.modules.filter((n) => existsSync(moduleDataFile(layout, n))));
  const save = (list: string[]) => recordModuleData(layout, list);
  const [taken] = new ModuleDataFiles(layout, owned, save).notOurs(run.modules);
  if (taken !== undefined) {
    throw new DataDirError(
      `${moduleDataFile(layout, taken)} is not cobweb's, and module ${taken} would write its records into it; move the file, or use another --data folder`,
    );
  }
  if (run.fresh) clearCrawl(layout, owned);
  const previous = run.fresh ? null : found;
  const change = describeLinkChanges(previous?.settings, run.settings);
  if (change !== null) log(change, 'warning');
  const moduleData = new ModuleDataFiles(layout, [...(previous === null ? [] : owned), ...run.modules], save);
  const { seen } = run;
  writeMarker(
    layout,
    {
      settings: run.settings,
      seen:
        seen === undefined
          ? undefined
          : { kind: seen.kind, capacity: seen.capacity ?? null, fpRate: seen.fpRate ?? 0.001 },
      moduleData: moduleData.list,
    },
    previous,
  );
  return {
    changed: previous === null ? [] : changedLinkSettings(previous.settings, run.settings),
    moduleData,
  };
}
