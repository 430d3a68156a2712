/**
 * The errors cobweb throws, each one line saying what was wrong and what to do, and each
 * with a `code` that stays the same from version to version (as Node's `ERR_*` and
 * Fastify's `FST_ERR_*`): a caller tells a busy data folder from an unreachable
 * PostgreSQL by `err.code`, never by the message. The command line picks its exit code
 * by the code (src/cli/exit-codes.ts). This file imports nothing: every folder may
 * throw these.
 */

/** Every code a CobwebError may carry, with what it means. */
export const ERROR_CODES = {
  COBWEB_OPTION: 'an option, a seed URL or another part of the call cannot work as given',
  COBWEB_OPTION_VALUE: "a value does not fit its option's kind",
  COBWEB_MODULE_LOAD: 'a module cannot be loaded',
  COBWEB_DATA_DIR: 'the --data folder cannot be used as given',
  COBWEB_DATA_DIR_BUSY: 'another process holds the --data folder',
  COBWEB_NOT_A_STORE: 'a store file is not a cobweb store',
  COBWEB_STORE_SPEC: 'a store spec names no store cobweb can open',
  COBWEB_SEEN_SET_BUSY: "another process holds the store's seen set",
  COBWEB_POSTGRES_CONFIG: 'the PostgreSQL connection string cannot work as given',
  COBWEB_POSTGRES_UNREACHABLE: 'PostgreSQL could not be reached',
  COBWEB_SERVER_UNREACHABLE: 'the cobweb server could not be reached, or refused this client',
  COBWEB_PROTOCOL: 'bytes that break the packet protocol',
  COBWEB_CONTROL: 'the server refuses a request',
  COBWEB_LATE_START: 'a robots.txt request could not go out in time',
  COBWEB_FETCH: "the fetcher's own checks ended an exchange",
  COBWEB_DISK_FULL: 'the disk the crawl writes to is full',
} as const;

export type CobwebErrorCode = keyof typeof ERROR_CODES;

/** The base of every error cobweb throws on purpose: `code` says which it is. */
export abstract class CobwebError extends Error {
  abstract readonly code: CobwebErrorCode;
}

/** A problem with what the caller asked for (an option, a seed, a module, the --data folder): nothing was crawled. */
export class CrawlOptionError extends CobwebError {
  override name = 'CrawlOptionError';
  readonly code: CobwebErrorCode = 'COBWEB_OPTION';
}

/** A --module (or a built-in module) that cannot be loaded: the crawl does not start without it. */
export class ModuleLoadError extends CrawlOptionError {
  override name = 'ModuleLoadError';
  override readonly code: CobwebErrorCode = 'COBWEB_MODULE_LOAD';
}

/** The --data folder cannot be used as given (a file, a folder cobweb did not make, a store that is not cobweb's). */
export class DataDirError extends CrawlOptionError {
  override name = 'DataDirError';
  override readonly code: CobwebErrorCode = 'COBWEB_DATA_DIR';
}

/** Another crawl holds the --data folder: not a mistake in the command, so not a usage error. */
export class DataDirBusyError extends CobwebError {
  override name = 'DataDirBusyError';
  readonly code = 'COBWEB_DATA_DIR_BUSY';
}

/**
 * The disk the crawl writes to filled up: the run ended there, and what it had written
 * is kept. Freeing space and running the same command again goes on.
 */
export class DiskFullError extends CobwebError {
  override name = 'DiskFullError';
  readonly code = 'COBWEB_DISK_FULL';
}
