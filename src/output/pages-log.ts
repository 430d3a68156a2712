import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync } from 'node:fs';
import { dirname } from 'node:path';
import { writeAll } from '../write-all.js';

/**
 * One line of pages.jsonl: a URL the crawl fetched, failed to fetch, or refused. Built
 * once, with the crawler that wrote it (src/bunny/page-record.ts), and not changed after:
 * what the modules add to a page makes a new line (src/bunny/page-result.ts). A module's
 * fields may restate what the crawl read in the page, and add fields under names of
 * their own; what the crawl observed stays as it was.
 */
export type PageRecord = Readonly<ObservedFields & ReadFields> & ModuleFields;

/** What the crawl observed of a URL and its fetch: a module's fields never replace these. */
export type ObservedFields = {
  url: string;
  /** HTTP status; null when no response came (a network failure or a refused URL). */
  status: number | null;
  contentType: string | null;
  /** Body bytes after content-decoding. */
  bytes: number | null;
  depth: number;
  /** When the request was sent (ISO 8601); null for refused URLs. */
  fetchedAt: string | null;
  durationMs: number | null;
  /** The page the URL was found on; null for seeds. */
  via: string | null;
  /** A page's requisite (--requisites): fetched for the page that named it, not followed. */
  requisite?: true;
  /** --render: the page's links and title come from its DOM as Chromium built it. */
  rendered?: true;
  /** --render with --requisites: a requisite the rendered page loaded, taken from Chromium rather than fetched again. */
  captured?: true;
  /** --render: the page could not be rendered ('render-timeout', 'render-crash', 'render'), and was read as fetched. */
  renderError?: string;
  /** --render: the requests the page made of its own (scripts, stylesheets, XHR): sent, and refused (not sent). */
  subrequests?: { made: number; refused: number };
  /** The crawler (its id from the store) that wrote the line. */
  crawler?: number;
  /** Tries it took, when more than one (earlier tries failed transiently and are not recorded). */
  attempts?: number;
  /** For failures and refusals: a short reason ('timeout', 'too-large', 'dns', 'filtered', ...). */
  error?: string;
  /** Detail for the reason: which filter refused it, or the failure's message. */
  detail?: string;
};

/** What the crawl read in the page: a module's fields may restate these. */
export type ReadFields = {
  title: string | null;
  /** Distinct http(s) links on the page; null on a URL that got no response. */
  outlinks: number | null;
  /** null on a URL that got no response. */
  hasForm: boolean | null;
  /** For a redirect: where it points (canonical). */
  location?: string;
  /** The page asked not to be indexed (meta robots). */
  noindex?: true;
  /** A recrawl's conditional GET got 304 Not Modified: the copy stored before still holds. */
  notModified?: true;
};

/** Fields the modules' page hooks returned, each under its own name. */
export type ModuleFields = { readonly [field: string]: unknown };

/** The names of ObservedFields, written out so the compiler holds the list to the type. */
const OBSERVED: Record<keyof ObservedFields, true> = {
  url: true,
  status: true,
  contentType: true,
  bytes: true,
  depth: true,
  fetchedAt: true,
  durationMs: true,
  via: true,
  requisite: true,
  rendered: true,
  captured: true,
  renderError: true,
  subrequests: true,
  crawler: true,
  attempts: true,
  error: true,
  detail: true,
};

/** A module's field of one of these names is left out: the line keeps what the crawl observed. */
export const OBSERVED_FIELDS: ReadonlySet<string> = new Set(Object.keys(OBSERVED));

/**
 * pages.jsonl, appended with synchronous writes: when append() returns the lines are in
 * the OS, so the crawl can mark the URLs done knowing a kill -9 cannot lose the lines.
 * pages.jsonl holds what was fetched or failed; the URLs refused without a request (the
 * crawl's rules, robots.txt) go to refused.jsonl beside it, in the same form.
 */
export class PagesLog {
  private readonly fd: number;
  private refusedFd: number | null = null;

  constructor(
    readonly file: string,
    readonly refusedFile: string,
  ) {
    mkdirSync(dirname(file), { recursive: true });
    this.fd = openSync(file, 'a+');
    dropTornLastLine(this.fd);
  }

  append(records: readonly PageRecord[]): void {
    if (records.length === 0) return;
    let text = '';
    let refused = '';
    for (const r of records) {
      if (refusedWithoutRequest(r)) refused += `${JSON.stringify(r)}\n`;
      else text += `${JSON.stringify(r)}\n`;
    }
    if (text !== '') writeAll(this.fd, text);
    if (refused !== '') writeAll(this.refusedLog(), refused);
  }

  /** Opened at the first refusal: a crawl that refused nothing has no refused.jsonl. */
  private refusedLog(): number {
    if (this.refusedFd === null) {
      this.refusedFd = openSync(this.refusedFile, 'a+');
      dropTornLastLine(this.refusedFd);
    }
    return this.refusedFd;
  }

  /** A line that is not a URL's: a crawl pass's end (`passEnd`), for readers that split the file by pass. */
  appendMarker(line: Record<string, unknown>): void {
    writeAll(this.fd, `${JSON.stringify(line)}\n`);
  }

  close(): void {
    closeSync(this.fd);
    if (this.refusedFd !== null) closeSync(this.refusedFd);
  }
}

/** A line of refused.jsonl: a URL the crawl's rules or robots.txt refused, never requested. */
export function refusedWithoutRequest(r: Pick<PageRecord, 'status' | 'error'>): boolean {
  // The 'refused' and 'robots' kinds of run-counts.ts's outcomeOf.
  return r.status === null && (r.error === 'filtered' || r.error === 'too-long' || r.error === 'robots');
}

/**
 * A process killed in the middle of a write can leave half a line. That URL was not
 * completed in the store, so it will be fetched and written again: drop the torn half.
 */
function dropTornLastLine(fd: number): void {
  const size = fstatSync(fd).size;
  if (size === 0) return;
  const chunk = Buffer.alloc(Math.min(size, 1 << 16));
  let end = size;
  while (end > 0) {
    const start = Math.max(0, end - chunk.length);
    const n = readSync(fd, chunk, 0, end - start, start);
    const nl = chunk.lastIndexOf(10, n - 1);
    if (end === size && nl === n - 1) return; // ends with a newline: nothing torn
    if (nl >= 0) {
      ftruncateSync(fd, start + nl + 1);
      return;
    }
    end = start;
  }
  ftruncateSync(fd, 0);
}
