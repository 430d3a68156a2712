/**
 * How a module's file is imported. The command line runs from a bundle that its launcher
 * compiles itself, so that V8's compiled code is kept from one start to the next
 * (`src/cli/code-cache.ts`), and import() in code compiled that way has no module loader
 * to call: the launcher hands in one that has. Everywhere else (the threads, the library)
 * this is plain import().
 */
export type ModuleImporter = (url: string) => Promise<unknown>;

let importer: ModuleImporter = (url) => import(url);

export function setModuleImporter(next: ModuleImporter): void {
  importer = next;
}

/** Imports the module at a file: URL. */
export function importModule(url: string): Promise<unknown> {
  return importer(url);
}
