/**
 * The library API: `import { crawl, serve, bunny } from 'cobweb'`. The command line is a
 * thin layer over these.
 */

/** htmlparser2's DOM helpers (domutils), to query what `page.dom()` gives a module. */
export { DomUtils } from 'htmlparser2';
export { type BunnyOptions, type BunnyStop, type BunnySummary, bunny } from './assembly/bunny.js';
export { crawl } from './assembly/crawl.js';
export {
  type CobwebServerHandle,
  type ServeOptions,
  type ServerStop,
  type ServerSummary,
  serve,
} from './assembly/serve.js';
// Every error the library throws on purpose: a CobwebError, told apart by its `code`.
// (StoreSpecError is the test and benchmark helper openFrontier's, which the library does
// not use: exporting it would load node-postgres with the library.)
export {
  CobwebError,
  type CobwebErrorCode,
  CrawlOptionError,
  DataDirBusyError,
  DataDirError,
  DiskFullError,
  ERROR_CODES,
  ModuleLoadError,
} from './errors.js';
export { FetcherError } from './fetch/errors.js';
export { LateStartError } from './fetch/robots/robots-fetch.js';
export { PostgresConfigError, PostgresUnreachableError } from './frontier/postgres/errors.js';
export { ServerUnreachableError } from './frontier/remote/connection.js';
export { NotAStoreError } from './frontier/sqlite/schema.js';
export { SeenSetBusyError } from './frontier/sqlite/seen-gate.js';
export type {
  CobwebModule,
  Document,
  MetaTag,
  ModuleContext,
  ModulePage,
  ModuleSite,
  ModuleStats,
  PageFacts,
  PageFields,
  PageForm,
} from './modules/api.js';
export { OptionValueError } from './options/option-kinds.js';
export type { CrawlOptions, CrawlProgress, CrawlSummary } from './options/options.js';
export type { PageRecord } from './output/pages-log.js';
export { ProtocolError } from './protocol/errors.js';
export { ControlError } from './server/session.js';
export { canonicalize } from './url/canonicalize.js';
export type { ScopeMode } from './url/filter.js';
export { VERSION } from './version.js';
