import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { MODULE_NAME } from '../modules/api.js';
import type { DataLayout } from './layout.js';

/** Where a module's records go: `data/<name>.jsonl`. */
export function moduleDataFile(layout: DataLayout, name: string): string {
  return join(layout.moduleData, `${name}.jsonl`);
}

/**
 * The files in `data/` that cobweb writes, one per module, as cobweb.json lists them:
 * --fresh deletes these and no other file there. A module may write its file when the
 * list has it, or when no such file exists yet: it is listed then (and the list saved)
 * before the first line goes in. A file of that name that is not on the list is
 * someone else's, and nothing is written into it.
 */
export class ModuleDataFiles {
  private readonly owned: Set<string>;

  constructor(
    private readonly layout: DataLayout,
    owned: Iterable<string>,
    private readonly save: (owned: string[]) => void,
  ) {
    this.owned = new Set(owned);
  }

  /** Where the module's records go. */
  file(name: string): string {
    return moduleDataFile(this.layout, name);
  }

  /** The names listed, in the order they were claimed. */
  get list(): string[] {
    return [...this.owned];
  }

  /** Whether the module may write `data/<name>.jsonl`; listed from now on when it may. */
  claim(name: string): boolean {
    if (this.owned.has(name)) return true;
    if (!MODULE_NAME.test(name) || existsSync(moduleDataFile(this.layout, name))) return false;
    this.owned.add(name);
    this.save(this.list);
    return true;
  }

  /** The names whose file is there but is not cobweb's: none may be written. */
  notOurs(names: readonly string[]): string[] {
    return names.filter((n) => !this.owned.has(n) && existsSync(moduleDataFile(this.layout, n)));
  }
}
