/**
 * The library API: `import { crawl } from 'cobweb'`. The command line is a thin layer
 * over these.
 */

/** htmlparser2's DOM helpers (domutils), to query what `page.dom()` gives a module. */
export { DomUtils } from 'htmlparser2';
export { CrawlOptionError, crawl } from './assembly/crawl.js';
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
export type { CrawlOptions, CrawlProgress, CrawlSummary } from './options/options.js';
export type { PageRecord } from './output/pages-log.js';
export { canonicalize } from './url/canonicalize.js';
export type { ScopeMode } from './url/filter.js';
export { VERSION } from './version.js';
