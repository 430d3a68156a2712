import { closeSync, fstatSync, ftruncateSync, mkdirSync, openSync, readSync, writeSync } from 'node:fs';
import { dirname } from 'node:path';

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
  /** --render: the page could not be rendered ('render-timeout', 'render-crash', 'render'), and was read as fetched. */
  renderError?: string;
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
  /** Distinct http(s) links on the page. */
  outlinks: number;
  hasForm: boolean;
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
  renderError: true,
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
 */
export class PagesLog {
  private readonly fd: number;

  constructor(readonly file: string) {
    mkdirSync(dirname(file), { recursive: true });
    this.fd = openSync(file, 'a+');
    dropTornLastLine(this.fd);
  }

  append(records: readonly PageRecord[]): void {
    if (records.length === 0) return;
    let text = '';
    for (const r of records) text += `${JSON.stringify(r)}\n`;
    writeSync(this.fd, text);
  }

  /** A line that is not a URL's: a crawl pass's end (`passEnd`), for readers that split the file by pass. */
  appendMarker(line: Record<string, unknown>): void {
    writeSync(this.fd, `${JSON.stringify(line)}\n`);
  }

  close(): void {
    closeSync(this.fd);
  }
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
