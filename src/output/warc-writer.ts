// Appends crawled HTTP exchanges to rolling, per-record-gzipped WARC 1.1 files.
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { ZlibOptions } from 'node:zlib';
import {
  gzipRecord,
  isValidFieldName,
  newRecordId,
  sha1Digest,
  type WarcField,
  warcDate,
  warcFieldsBlock,
} from './warc-record.js';

export interface WarcExchange {
  /** WARC-Target-URI. */
  url: string;
  /** When the request was sent. */
  date: Date;
  /** The request head exactly as sent, ending with an empty line. */
  requestHead: Buffer;
  /** The response head as received, ending with an empty line, Transfer-Encoding already removed. */
  responseHead: Buffer;
  /** The entity body as transferred, de-chunked, content-encoding kept. */
  rawBody: Buffer;
  /** WARC-IP-Address when known. */
  remoteAddress: string | null;
  /** The proxy the request went through, named in the request record's WARC-Proxy field. */
  proxy?: string | null;
  /** 'h2': the exchange spoke HTTP/2 (stored in HTTP/1.1 form); said in WARC-Protocol. */
  protocol?: 'http/1.1' | 'h2';
  /**
   * A 304 to a conditional GET: the response is a `revisit` record (profile
   * server-not-modified) referring to the capture of `refersToDate`.
   */
  notModified?: { refersToDate: Date };
  /** 'length': the body was cut at a size limit (a robots.txt past 500 KiB); said in WARC-Truncated. */
  truncated?: 'length';
  /**
   * Not an exchange: one `resource` record whose block is `rawBody`, of this Content-Type
   * (a page's screenshot, `urn:screenshot:URL`, as Browsertrix writes it). The heads are empty.
   */
  resource?: { contentType: string };
}

const SERVER_NOT_MODIFIED = 'http://netpreserve.org/warc/1.1/revisit/server-not-modified';

export interface WarcWriterOptions {
  /** Directory for the files; created if missing. */
  dir: string;
  /** File name prefix; default 'cobweb'. */
  prefix?: string;
  /** Roll to a new file before a write would pass this size; a file always holds warcinfo + one exchange. */
  maxFileBytes?: number;
  /** Goes into the warcinfo `software` field. */
  software: string;
  /** Extra warcinfo fields, e.g. { 'http-header-user-agent': ..., robots: 'obey' }. */
  info?: Record<string, string>;
  /**
   * gzip level 0-9 for every record; default 3. Measured on the benchmark's realistic
   * pages (about 25 KB of HTML): level 6 costs 1.4 to 1.9 times the CPU of level 3 for
   * files 8% smaller; level 1 costs about what level 3 does, for files 6% larger.
   */
  gzipLevel?: number;
}

/**
 * Where a writer stands in its files, for a writer on another thread to go on from: the
 * file it was writing (the other writer opens it again: a thread must not close a
 * descriptor another thread opened) and its counts.
 */
export interface WarcWriterState {
  /** The file being written, warcinfo record and all; null: none yet. */
  file: string | null;
  fileBytes: number;
  bytesWritten: number;
  exchangesInFile: number;
  warcinfoId: string;
  serial: number;
  files: string[];
}

const DEFAULT_MAX_FILE_BYTES = 1_000_000_000;
const DEFAULT_GZIP_LEVEL = 3;
const WARC_FORMAT = 'WARC File Format 1.1';
const WARC_CONFORMS_TO = 'https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/';

export class WarcWriter {
  readonly #dir: string;
  readonly #prefix: string;
  readonly #maxFileBytes: number;
  readonly #zlib: ZlibOptions;
  readonly #warcinfoBlock: Buffer;
  readonly #files: string[] = [];
  #fd: number | null = null;
  #fileBytes = 0;
  #bytesWritten = 0;
  #exchangesInFile = 0;
  #warcinfoId = '';
  #serial = 0;
  #closed = false;

  /** `from`: go on where another writer (on another thread) handed over, in its open file. */
  constructor(options: WarcWriterOptions, from?: WarcWriterState) {
    const maxFileBytes = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
    if (!(maxFileBytes > 0)) throw new RangeError(`maxFileBytes must be positive, got ${maxFileBytes}`);
    const gzipLevel = options.gzipLevel ?? DEFAULT_GZIP_LEVEL;
    if (!Number.isInteger(gzipLevel) || gzipLevel < 0 || gzipLevel > 9) {
      throw new RangeError(`gzipLevel must be an integer from 0 to 9, got ${gzipLevel}`);
    }
    const prefix = options.prefix ?? 'cobweb';
    if (prefix === '' || /[/\\]/.test(prefix)) throw new RangeError(`invalid WARC file prefix: '${prefix}'`);

    this.#dir = path.resolve(options.dir);
    this.#prefix = prefix;
    this.#maxFileBytes = maxFileBytes;
    this.#zlib = { level: gzipLevel };
    this.#warcinfoBlock = warcFieldsBlock(warcinfoFields(options));
    fs.mkdirSync(this.#dir, { recursive: true });
    if (from !== undefined) {
      // r+: positioned writes go where the other writer left off; nothing is truncated.
      this.#fd = from.file === null ? null : fs.openSync(from.file, 'r+');
      this.#fileBytes = from.fileBytes;
      this.#bytesWritten = from.bytesWritten;
      this.#exchangesInFile = from.exchangesInFile;
      this.#warcinfoId = from.warcinfoId;
      this.#serial = from.serial;
      this.#files.push(...from.files);
    }
  }

  /**
   * Stops writing here and says where this writer stood, for a writer on another thread
   * to go on from in the same file (`new WarcWriter(options, state)`). The file is closed
   * here without a sync: the writer that finishes it syncs it. write() afterwards throws.
   */
  handOver(): WarcWriterState {
    if (this.#closed) throw new Error('WarcWriter is closed');
    this.#closed = true;
    const state: WarcWriterState = {
      file: this.#fd === null ? null : (this.#files[this.#files.length - 1] ?? null),
      fileBytes: this.#fileBytes,
      bytesWritten: this.#bytesWritten,
      exchangesInFile: this.#exchangesInFile,
      warcinfoId: this.#warcinfoId,
      serial: this.#serial,
      files: [...this.#files],
    };
    if (this.#fd !== null) fs.closeSync(this.#fd);
    this.#fd = null;
    return state;
  }

  /** Bytes written to every file so far, warcinfo records included. */
  get bytesWritten(): number {
    return this.#bytesWritten;
  }

  /** Files written by this writer, in order (absolute paths). */
  get files(): readonly string[] {
    return this.#files;
  }

  /**
   * Appends a request and a response record. Synchronous on purpose: when it returns, the bytes are in the
   * OS, so a kill -9 after the caller marks the URL done cannot lose the record.
   */
  write(exchange: WarcExchange): void {
    this.writeAll([exchange]);
  }

  /**
   * Appends the exchanges in order, as write() would one by one, with one system call for
   * those that go to the same file: a thread that writes a batch of small pages spent a
   * twentieth of its time in one write a page. If a write fails, the file is cut back to
   * where that write began: what went before it stays.
   */
  writeAll(exchanges: readonly WarcExchange[]): void {
    if (this.#closed) throw new Error('WarcWriter is closed');
    if (this.#fd === null) this.#startFile();
    let pending: Buffer[] = [];
    let pendingBytes = 0;
    for (const exchange of exchanges) {
      let bytes = this.#serializeExchange(exchange);
      const inFile = this.#exchangesInFile + pending.length;
      if (inFile > 0 && this.#fileBytes + pendingBytes + bytes.length > this.#maxFileBytes) {
        this.#append(pending, pendingBytes);
        pending = [];
        pendingBytes = 0;
        this.#startFile();
        // Serialize again: the records must name the new file's warcinfo record.
        bytes = this.#serializeExchange(exchange);
      }
      pending.push(bytes);
      pendingBytes += bytes.length;
    }
    this.#append(pending, pendingBytes);
  }

  /** Flushes and closes the current file. Idempotent; write() afterwards throws. */
  close(): void {
    this.#closed = true;
    this.#closeFile();
  }

  #serializeExchange(exchange: WarcExchange): Buffer {
    if (exchange.resource !== undefined)
      return this.#serializeResource(exchange, exchange.resource.contentType);
    const requestId = newRecordId();
    const responseId = newRecordId();
    const shared: WarcField[] = [
      ['WARC-Date', warcDate(exchange.date)],
      ['WARC-Target-URI', exchange.url],
    ];
    if (exchange.remoteAddress) shared.push(['WARC-IP-Address', exchange.remoteAddress]);
    if (exchange.protocol === 'h2') shared.push(['WARC-Protocol', 'h2']);
    shared.push(['WARC-Warcinfo-ID', this.#warcinfoId]);

    const request = gzipRecord(
      [
        ['WARC-Type', 'request'],
        ['WARC-Record-ID', requestId],
        ...shared,
        ['WARC-Concurrent-To', responseId],
        ...(exchange.proxy ? ([['WARC-Proxy', exchange.proxy]] as WarcField[]) : []),
        ['Content-Type', 'application/http;msgtype=request'],
        ['WARC-Block-Digest', sha1Digest(exchange.requestHead)],
      ],
      [exchange.requestHead],
      this.#zlib,
    );
    const revisit = exchange.notModified;
    const response = gzipRecord(
      [
        ['WARC-Type', revisit === undefined ? 'response' : 'revisit'],
        ['WARC-Record-ID', responseId],
        ...shared,
        ...(revisit === undefined
          ? []
          : ([
              ['WARC-Profile', SERVER_NOT_MODIFIED],
              ['WARC-Refers-To-Target-URI', exchange.url],
              ['WARC-Refers-To-Date', warcDate(revisit.refersToDate)],
            ] as WarcField[])),
        ...(exchange.truncated === undefined
          ? []
          : ([['WARC-Truncated', exchange.truncated]] as WarcField[])),
        ['Content-Type', 'application/http;msgtype=response'],
        ['WARC-Block-Digest', sha1Digest(exchange.responseHead, exchange.rawBody)],
        // A 304 has no payload: the revisit record holds its head alone.
        ...(revisit === undefined
          ? ([['WARC-Payload-Digest', sha1Digest(exchange.rawBody)]] as WarcField[])
          : []),
      ],
      [exchange.responseHead, exchange.rawBody],
      this.#zlib,
    );
    // One buffer so that one writeSync puts the whole exchange in the file.
    return Buffer.concat([request, response], request.length + response.length);
  }

  #serializeResource(exchange: WarcExchange, contentType: string): Buffer {
    return gzipRecord(
      [
        ['WARC-Type', 'resource'],
        ['WARC-Record-ID', newRecordId()],
        ['WARC-Date', warcDate(exchange.date)],
        ['WARC-Target-URI', exchange.url],
        ['WARC-Warcinfo-ID', this.#warcinfoId],
        ['Content-Type', contentType],
        ['WARC-Block-Digest', sha1Digest(exchange.rawBody)],
        ['WARC-Payload-Digest', sha1Digest(exchange.rawBody)],
      ],
      [exchange.rawBody],
      this.#zlib,
    );
  }

  /** Closes the current file (if any) and opens a new one, starting with its warcinfo record. */
  #startFile(): void {
    this.#closeFile();
    const now = new Date();
    const { fd, name } = this.#createUniqueFile(now);
    const file = path.join(this.#dir, name);
    const warcinfoId = newRecordId();
    const warcinfo = gzipRecord(
      [
        ['WARC-Type', 'warcinfo'],
        ['WARC-Record-ID', warcinfoId],
        ['WARC-Date', warcDate(now)],
        ['WARC-Filename', name],
        ['Content-Type', 'application/warc-fields'],
        ['WARC-Block-Digest', sha1Digest(this.#warcinfoBlock)],
      ],
      [this.#warcinfoBlock],
      this.#zlib,
    );
    try {
      writeFully(fd, [warcinfo], 0);
    } catch (error) {
      // Without its warcinfo the file must not receive exchanges: drop it, the next write starts over.
      fs.closeSync(fd);
      fs.rmSync(file, { force: true });
      throw error;
    }
    this.#fd = fd;
    this.#fileBytes = warcinfo.length;
    this.#bytesWritten += warcinfo.length;
    this.#exchangesInFile = 0;
    this.#warcinfoId = warcinfoId;
    this.#files.push(file);
  }

  /** Opens with O_EXCL so that a writer never appends to a file another writer or an earlier crawl left. */
  #createUniqueFile(now: Date): { fd: number; name: string } {
    const timestamp = now.toISOString().replace(/\D/g, ''); // yyyyMMddHHmmssSSS
    for (;;) {
      const serial = String(this.#serial++).padStart(5, '0');
      const name = `${this.#prefix}-${timestamp}-${serial}-${process.pid}.warc.gz`;
      try {
        return { fd: fs.openSync(path.join(this.#dir, name), 'wx'), name };
      } catch (error) {
        if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
      }
    }
  }

  /** Appends whole exchanges (each one buffer) to the open file. */
  #append(exchanges: readonly Buffer[], bytes: number): void {
    if (exchanges.length === 0) return;
    if (this.#fd === null) throw new Error('WarcWriter has no open file');
    writeFully(this.#fd, exchanges, this.#fileBytes);
    this.#fileBytes += bytes;
    this.#bytesWritten += bytes;
    this.#exchangesInFile += exchanges.length;
  }

  #closeFile(): void {
    if (this.#fd === null) return;
    const fd = this.#fd;
    this.#fd = null;
    // Once per file, so cheap: a finished file should survive a power loss, not only a process kill.
    try {
      fs.fsyncSync(fd);
    } finally {
      fs.closeSync(fd);
    }
  }
}

function warcinfoFields(options: WarcWriterOptions): WarcField[] {
  const fields = new Map<string, string>([
    ['software', options.software],
    ['format', WARC_FORMAT],
    ['conformsTo', WARC_CONFORMS_TO],
    ['hostname', os.hostname()],
  ]);
  for (const [name, value] of Object.entries(options.info ?? {})) {
    if (!isValidFieldName(name)) throw new RangeError(`invalid warcinfo field name: '${name}'`);
    fields.set(name, value);
  }
  return [...fields];
}

/**
 * Writes all of `parts`, one after the other, at `position`. On failure (e.g. disk full)
 * the file is cut back to `position`: a half-written record would make everything after
 * it unreadable to sequential readers.
 */
function writeFully(fd: number, parts: readonly Buffer[], position: number): void {
  let total = 0;
  for (const part of parts) total += part.length;
  try {
    let written =
      parts.length === 1
        ? fs.writeSync(fd, parts[0] as Buffer, 0, total, position)
        : fs.writevSync(fd, parts, position);
    if (written < total) {
      // A short write (rare): the rest, from one buffer.
      const rest = Buffer.concat(parts, total);
      while (written < total) written += fs.writeSync(fd, rest, written, total - written, position + written);
    }
  } catch (error) {
    try {
      fs.ftruncateSync(fd, position);
    } catch {
      // The write error is the one worth reporting.
    }
    throw error;
  }
}
