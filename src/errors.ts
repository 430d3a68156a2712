/**
 * The errors crawl() throws before it starts, each one line saying what was wrong and
 * what to do. The command line maps them to exit codes (src/cli/exit-codes.ts).
 */

/** A problem with what the caller asked for (an option, a seed, a module, the --data folder): nothing was crawled. */
export class CrawlOptionError extends Error {
  override name = 'CrawlOptionError';
}

/** A --module (or a built-in module) that cannot be loaded: the crawl does not start without it. */
export class ModuleLoadError extends CrawlOptionError {
  override name = 'ModuleLoadError';
}

/** The --data folder cannot be used as given (a file, a folder cobweb did not make, a store that is not cobweb's). */
export class DataDirError extends CrawlOptionError {
  override name = 'DataDirError';
}

/** Another crawl holds the --data folder: not a mistake in the command, so not a usage error. */
export class DataDirBusyError extends Error {
  override name = 'DataDirBusyError';
}
