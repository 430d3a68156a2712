import { spawnSync } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WARCParser, type WARCRecord } from 'warcio';
import { type WarcExchange, WarcWriter } from '../../src/output/warc-writer.js';

const SOFTWARE = 'cobweb/0.1.0 (+https://github.com/cobweb-crawler/cobweb)';
const DATE = new Date('2026-11-30T11:05:39.123Z');

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobweb-warc-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function exchange(url: string, body: Buffer, extraResponseHeaders = ''): WarcExchange {
  const { host, pathname } = new URL(url);
  return {
    url,
    date: DATE,
    requestHead: Buffer.from(`GET ${pathname} HTTP/1.1\r\nhost: ${host}\r\nuser-agent: ${SOFTWARE}\r\n\r\n`),
    responseHead: Buffer.from(
      `HTTP/1.1 200 OK\r\ncontent-type: text/html\r\ncontent-length: ${body.length}\r\n${extraResponseHeaders}\r\n`,
    ),
    rawBody: body,
    remoteAddress: '192.0.2.7',
  };
}

interface ReadRecord {
  record: WARCRecord;
  field(name: string): string | null;
  /** The whole block when read with parseHttp false, the raw payload when read with parseHttp true. */
  content: Uint8Array;
}

async function readWarc(file: string, parseHttp = false): Promise<ReadRecord[]> {
  const records: ReadRecord[] = [];
  for await (const record of WARCParser.iterRecords(fs.createReadStream(file), { parseHttp })) {
    const content = await record.readFully(false);
    records.push({ record, content, field: (name) => record.warcHeader(name) ?? null });
  }
  return records;
}

function base32Sha1(...parts: Uint8Array[]): string {
  const hash = createHash('sha1');
  for (const part of parts) hash.update(part);
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ234567';
  let bits = '';
  for (const byte of hash.digest()) bits += byte.toString(2).padStart(8, '0');
  bits = bits.padEnd(Math.ceil(bits.length / 5) * 5, '0');
  let out = '';
  for (let i = 0; i < bits.length; i += 5) out += alphabet[Number.parseInt(bits.slice(i, i + 5), 2)];
  return `sha1:${out}`;
}

/** Splits a .gz file into its members by reading the gzip framing itself (RFC 1952), checking CRC and size. */
function gzipMembers(file: Buffer): Buffer[] {
  const members: Buffer[] = [];
  let offset = 0;
  while (offset < file.length) {
    expect([file[offset], file[offset + 1], file[offset + 2]]).toEqual([0x1f, 0x8b, 8]);
    const flags = file[offset + 3] ?? 0;
    let start = offset + 10;
    if (flags & 4) start += 2 + file.readUInt16LE(start); // FEXTRA
    if (flags & 8) start = file.indexOf(0, start) + 1; // FNAME
    if (flags & 16) start = file.indexOf(0, start) + 1; // FCOMMENT
    if (flags & 2) start += 2; // FHCRC
    // A raw inflate stops at the end of the deflate stream and reports how much input that took.
    const { buffer, engine } = zlib.inflateRawSync(file.subarray(start), { info: true }) as unknown as {
      buffer: Buffer;
      engine: zlib.Zlib;
    };
    const end = start + engine.bytesWritten;
    expect(file.readUInt32LE(end)).toBe(zlib.crc32(buffer));
    expect(file.readUInt32LE(end + 4)).toBe(buffer.length);
    members.push(buffer);
    offset = end + 8;
  }
  return members;
}

describe('WarcWriter', () => {
  it('writes warcinfo, then a linked request and response record per exchange', async () => {
    const writer = new WarcWriter({
      dir,
      software: SOFTWARE,
      info: { 'http-header-user-agent': SOFTWARE, robots: 'obey', isPartOf: 'test-crawl' },
    });
    writer.write(exchange('https://example.com/', Buffer.from('<html>home</html>')));
    writer.write({
      ...exchange('https://example.com/about', Buffer.from('<html>about</html>')),
      remoteAddress: null,
    });
    writer.close();

    expect(writer.files).toHaveLength(1);
    const file = writer.files[0] ?? '';
    expect(path.dirname(file)).toBe(path.resolve(dir));
    expect(path.basename(file)).toMatch(new RegExp(`^cobweb-\\d{17}-00000-${process.pid}\\.warc\\.gz$`));

    const records = await readWarc(file);
    expect(records.map((r) => r.record.warcType)).toEqual([
      'warcinfo',
      'request',
      'response',
      'request',
      'response',
    ]);
    for (const { record } of records) expect(record.warcHeaders.protocol).toBe('WARC/1.1');

    const [info, request1, response1, request2, response2] = records;
    if (!info || !request1 || !response1 || !request2 || !response2) throw new Error('records missing');
    expect(info.field('WARC-Filename')).toBe(path.basename(file));
    expect(info.field('Content-Type')).toBe('application/warc-fields');
    expect(info.field('WARC-Date')).toMatch(/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/);
    const infoText = Buffer.from(info.content).toString('utf8');
    expect(infoText).toContain(`software: ${SOFTWARE}\r\n`);
    expect(infoText).toContain('format: WARC File Format 1.1\r\n');
    expect(infoText).toContain(
      'conformsTo: https://iipc.github.io/warc-specifications/specifications/warc-format/warc-1.1/\r\n',
    );
    expect(infoText).toContain(`hostname: ${os.hostname()}\r\n`);
    expect(infoText).toContain(`http-header-user-agent: ${SOFTWARE}\r\n`);
    expect(infoText).toContain('robots: obey\r\n');
    expect(infoText).toContain('isPartOf: test-crawl\r\n');

    const infoId = info.field('WARC-Record-ID');
    const ids = records.map((r) => r.field('WARC-Record-ID'));
    for (const id of ids) expect(id).toMatch(/^<urn:uuid:[0-9a-f-]{36}>$/);
    expect(new Set(ids).size).toBe(ids.length);

    for (const [request, response, url, ip] of [
      [request1, response1, 'https://example.com/', '192.0.2.7'],
      [request2, response2, 'https://example.com/about', null],
    ] as const) {
      expect(request.field('WARC-Target-URI')).toBe(url);
      expect(response.field('WARC-Target-URI')).toBe(url);
      expect(request.field('WARC-Date')).toBe('2026-11-30T11:05:39.123Z');
      expect(response.field('WARC-Date')).toBe('2026-11-30T11:05:39.123Z');
      expect(request.field('WARC-IP-Address')).toBe(ip);
      expect(response.field('WARC-IP-Address')).toBe(ip);
      expect(request.field('WARC-Warcinfo-ID')).toBe(infoId);
      expect(response.field('WARC-Warcinfo-ID')).toBe(infoId);
      expect(request.field('WARC-Concurrent-To')).toBe(response.field('WARC-Record-ID'));
      expect(request.field('Content-Type')).toBe('application/http;msgtype=request');
      expect(response.field('Content-Type')).toBe('application/http;msgtype=response');
    }
  });

  it('writes block and payload digests that match the stored bytes', async () => {
    const writer = new WarcWriter({ dir, software: SOFTWARE });
    const sent = [
      exchange('https://example.com/a', Buffer.from('<p>first page</p>')),
      exchange('https://example.com/b', randomBytes(5000)),
    ];
    for (const ex of sent) writer.write(ex);
    writer.close();

    const records = await readWarc(writer.files[0] ?? '');
    expect(records).toHaveLength(5);
    for (const { field, content } of records) {
      expect(field('Content-Length')).toBe(String(content.length));
      expect(field('WARC-Block-Digest')).toBe(base32Sha1(content));
    }
    const responses = records.filter((r) => r.record.warcType === 'response');
    const requests = records.filter((r) => r.record.warcType === 'request');
    sent.forEach((ex, i) => {
      expect(Buffer.from(requests[i]?.content ?? [])).toEqual(ex.requestHead);
      expect(Buffer.from(responses[i]?.content ?? [])).toEqual(Buffer.concat([ex.responseHead, ex.rawBody]));
      expect(responses[i]?.field('WARC-Payload-Digest')).toBe(base32Sha1(ex.rawBody));
      expect(requests[i]?.field('WARC-Payload-Digest')).toBeNull();
    });
  });

  it('keeps gzip-encoded, binary and empty bodies byte for byte', async () => {
    const html = '<html><body>compressed on the wire</body></html>'.repeat(20);
    const gzipped = zlib.gzipSync(Buffer.from(html));
    const allBytes = Buffer.from(Array.from({ length: 256 }, (_, i) => i));
    const writer = new WarcWriter({ dir, software: SOFTWARE });
    writer.write(exchange('https://example.com/gz', gzipped, 'content-encoding: gzip\r\n'));
    writer.write(exchange('https://example.com/bin', allBytes));
    writer.write(exchange('https://example.com/empty', Buffer.alloc(0)));
    writer.close();

    const responses = (await readWarc(writer.files[0] ?? '', true)).filter(
      (r) => r.record.warcType === 'response',
    );
    expect(responses.map((r) => r.record.httpHeaders?.statusCode)).toEqual([200, 200, 200]);
    const [gz, bin, empty] = responses;
    expect(Buffer.from(gz?.content ?? [])).toEqual(gzipped);
    // The body was stored as transferred, so a reader can still undo the content-encoding.
    expect(Buffer.from((await gz?.record.readFully(true)) ?? []).toString()).toBe(html);
    expect(Buffer.from(bin?.content ?? [])).toEqual(allBytes);
    expect(empty?.content).toHaveLength(0);
    expect(empty?.field('WARC-Payload-Digest')).toBe('sha1:3I42H3S6NNFQ2MSVX7XZKYAYSCX5QBYJ');
  });

  it('compresses each record as its own gzip member', async () => {
    const writer = new WarcWriter({ dir, software: SOFTWARE });
    for (let i = 0; i < 4; i++) writer.write(exchange(`https://example.com/${i}`, randomBytes(i * 700)));
    writer.close();
    const file = writer.files[0] ?? '';
    const bytes = fs.readFileSync(file);

    const members = gzipMembers(bytes);
    expect(members).toHaveLength(9);
    expect(Buffer.concat(members)).toEqual(zlib.gunzipSync(bytes));
    const types = members.map((member) => {
      // Each member holds exactly one whole record: head, Content-Length bytes of block, CRLFCRLF.
      const text = member.toString('latin1');
      expect(text.startsWith('WARC/1.1\r\n')).toBe(true);
      const headEnd = text.indexOf('\r\n\r\n') + 4;
      const length = Number(/\r\nContent-Length: (\d+)\r\n/.exec(text.slice(0, headEnd))?.[1]);
      expect(member.length).toBe(headEnd + length + 4);
      expect(text.endsWith('\r\n\r\n')).toBe(true);
      return /\r\nWARC-Type: (\w+)\r\n/.exec(text)?.[1];
    });
    expect(types).toEqual(['warcinfo', ...Array(4).fill(['request', 'response']).flat()]);
    expect((await readWarc(file)).map((r) => r.record.warcType)).toEqual(types);
  });

  it.each([
    ['one at a time', 1],
    ['in batches of four (writeAll)', 4],
  ])(
    'rolls to new files, each starting with its own warcinfo, none over the limit unless it holds one exchange, written %s',
    async (_how, batch) => {
      const maxFileBytes = 5000;
      const writer = new WarcWriter({ dir, software: SOFTWARE, maxFileBytes, prefix: 'roll' });
      const urls: string[] = [];
      const exchanges: WarcExchange[] = [];
      for (let i = 0; i < 9; i++) {
        const url = `https://example.com/page${i}`;
        urls.push(url);
        // Random bodies do not compress, so each exchange takes about 2 KB; pages 0 and 4 alone pass the limit.
        exchanges.push(exchange(url, randomBytes(i === 0 || i === 4 ? 12_000 : 1500)));
      }
      for (let i = 0; i < exchanges.length; i += batch) {
        if (batch === 1) writer.write(exchanges[i] as WarcExchange);
        else writer.writeAll(exchanges.slice(i, i + batch));
      }
      writer.close();

      expect(writer.files.length).toBeGreaterThan(3);
      expect([...writer.files].sort()).toEqual(fs.readdirSync(dir).map((name) => path.join(dir, name)));
      const seenUrls: string[] = [];
      for (const file of writer.files) {
        expect(path.basename(file)).toMatch(/^roll-\d{17}-\d{5}-\d+\.warc\.gz$/);
        const records = await readWarc(file);
        const [info, ...rest] = records;
        expect(info?.record.warcType).toBe('warcinfo');
        expect(info?.field('WARC-Filename')).toBe(path.basename(file));
        for (const r of rest) expect(r.field('WARC-Warcinfo-ID')).toBe(info?.field('WARC-Record-ID'));
        const exchanges = rest.length / 2;
        expect(exchanges).toBeGreaterThanOrEqual(1);
        if (exchanges > 1) expect(fs.statSync(file).size).toBeLessThanOrEqual(maxFileBytes);
        for (const r of rest)
          if (r.record.warcType === 'response') seenUrls.push(r.field('WARC-Target-URI') ?? '');
      }
      expect(seenUrls).toEqual(urls);
      // The big pages were written, each alone in its file, rather than dropped.
      expect(writer.files.filter((f) => fs.statSync(f).size > maxFileBytes)).toHaveLength(2);
    },
  );

  it('starts a new file for a second writer and leaves the first intact', async () => {
    const first = new WarcWriter({ dir, software: SOFTWARE });
    first.write(exchange('https://example.com/1', Buffer.from('one')));
    first.write(exchange('https://example.com/2', Buffer.from('two')));
    first.close();
    const firstFile = first.files[0] ?? '';
    const firstBytes = fs.readFileSync(firstFile);

    const second = new WarcWriter({ dir, software: SOFTWARE });
    second.write(exchange('https://example.com/3', Buffer.from('three')));
    second.close();

    expect(second.files).toHaveLength(1);
    expect(second.files[0]).not.toBe(firstFile);
    expect(fs.readdirSync(dir)).toHaveLength(2);
    expect(fs.readFileSync(firstFile)).toEqual(firstBytes);
    expect((await readWarc(second.files[0] ?? '')).map((r) => r.field('WARC-Target-URI'))).toEqual([
      null,
      'https://example.com/3',
      'https://example.com/3',
    ]);
  });

  it('hands over to a writer that goes on in the same file, which the first no longer holds', async () => {
    const first = new WarcWriter({ dir, software: SOFTWARE });
    first.write(exchange('https://example.com/1', Buffer.from('one')));
    first.write(exchange('https://example.com/2', Buffer.from('two')));
    const state = first.handOver();
    // A path, not a descriptor: a worker thread must not close what another thread opened.
    expect(state.file).toBe(first.files[0]);
    expect(() => first.write(exchange('https://example.com/x', Buffer.from('x')))).toThrow(/closed/);
    const second = new WarcWriter({ dir, software: SOFTWARE }, state);
    second.write(exchange('https://example.com/3', Buffer.from('three')));
    second.close();

    expect(second.files).toEqual(first.files);
    expect(fs.readdirSync(dir)).toHaveLength(1);
    expect(second.bytesWritten).toBe(fs.statSync(second.files[0] ?? '').size);
    const records = await readWarc(second.files[0] ?? '');
    expect(records.map((r) => r.field('WARC-Target-URI'))).toEqual([
      null,
      'https://example.com/1',
      'https://example.com/1',
      'https://example.com/2',
      'https://example.com/2',
      'https://example.com/3',
      'https://example.com/3',
    ]);
    // The records after the hand-over name the file's one warcinfo record.
    const warcinfo = records[0]?.field('WARC-Record-ID');
    expect(records.slice(1).every((r) => r.field('WARC-Warcinfo-ID') === warcinfo)).toBe(true);
  });

  it('creates no file when nothing is written, and refuses writes after close', () => {
    const writer = new WarcWriter({ dir: path.join(dir, 'nested', 'warc'), software: SOFTWARE });
    writer.close();
    expect(writer.files).toEqual([]);
    expect(fs.readdirSync(path.join(dir, 'nested', 'warc'))).toEqual([]);
    expect(() => writer.write(exchange('https://example.com/', Buffer.from('x')))).toThrow(/closed/);
  });

  it('keeps a line break in a warcinfo value from breaking the record framing', async () => {
    const writer = new WarcWriter({ dir, software: SOFTWARE, info: { description: 'line one\r\nline two' } });
    writer.write(exchange('https://example.com/', Buffer.from('ok')));
    writer.close();
    const records = await readWarc(writer.files[0] ?? '');
    expect(records.map((r) => r.record.warcType)).toEqual(['warcinfo', 'request', 'response']);
    expect(Buffer.from(records[0]?.content ?? []).toString()).toContain(
      'description: line one%0D%0Aline two\r\n',
    );
  });

  it('rejects options that would produce an unreadable archive', () => {
    expect(() => new WarcWriter({ dir, software: SOFTWARE, gzipLevel: 10 })).toThrow(RangeError);
    expect(() => new WarcWriter({ dir, software: SOFTWARE, maxFileBytes: 0 })).toThrow(RangeError);
    expect(() => new WarcWriter({ dir, software: SOFTWARE, info: { 'bad name': 'x' } })).toThrow(RangeError);
    expect(() => new WarcWriter({ dir, software: SOFTWARE, prefix: '../up' })).toThrow(RangeError);
  });

  it('honours gzipLevel', async () => {
    const page = Buffer.from('<p>a compressible page</p>\n'.repeat(200));
    const sizes: number[] = [];
    for (const gzipLevel of [0, 9]) {
      const writer = new WarcWriter({
        dir: path.join(dir, String(gzipLevel)),
        software: SOFTWARE,
        gzipLevel,
      });
      writer.write(exchange('https://example.com/', page));
      writer.close();
      const file = writer.files[0] ?? '';
      sizes.push(fs.statSync(file).size);
      const response = (await readWarc(file, true)).find((r) => r.record.warcType === 'response');
      expect(Buffer.from(response?.content ?? [])).toEqual(page);
    }
    const [stored, best] = sizes;
    expect(stored).toBeGreaterThan(page.length);
    expect(best).toBeLessThan((stored ?? 0) / 3);
  });

  it('loses no acknowledged exchange when the process is killed with SIGKILL', async () => {
    const writerUrl = new URL('../../src/output/warc-writer.ts', import.meta.url).href;
    const script = path.join(dir, 'crawl-then-die.mjs');
    fs.writeFileSync(
      script,
      `import { WarcWriter } from ${JSON.stringify(writerUrl)};
const writer = new WarcWriter({ dir: ${JSON.stringify(path.join(dir, 'warc'))}, software: 'kill-test' });
for (let i = 0; i < 40; i++) {
  writer.write({
    url: 'https://example.com/' + i, date: new Date(), remoteAddress: null,
    requestHead: Buffer.from('GET /' + i + ' HTTP/1.1\\r\\nhost: example.com\\r\\n\\r\\n'),
    responseHead: Buffer.from('HTTP/1.1 200 OK\\r\\n\\r\\n'),
    rawBody: Buffer.from('page ' + i),
  });
  process.stdout.write('acked ' + i + '\\n');
}
process.kill(process.pid, 'SIGKILL');
`,
    );
    const projectRoot = fileURLToPath(new URL('../..', import.meta.url));
    const child = spawnSync(process.execPath, ['--import', 'tsx', script], {
      cwd: projectRoot,
      encoding: 'utf8',
    });
    expect(child.stderr).toBe('');
    expect(child.signal).toBe('SIGKILL');
    const acked = child.stdout.split('\n').filter((line) => line.startsWith('acked ')).length;
    expect(acked).toBe(40);

    const [killedFile, ...others] = fs.readdirSync(path.join(dir, 'warc'));
    expect(others).toEqual([]);
    const killedPath = path.join(dir, 'warc', killedFile ?? '');
    const responses = (await readWarc(killedPath)).filter((r) => r.record.warcType === 'response');
    expect(responses).toHaveLength(acked);
    expect(responses.map((r) => Buffer.from(r.content).toString())).toEqual(
      Array.from({ length: acked }, (_, i) => `HTTP/1.1 200 OK\r\n\r\npage ${i}`),
    );

    // The crawl resumes: a new writer starts its own file and does not touch the killed one.
    const killedBytes = fs.readFileSync(killedPath);
    const resumed = new WarcWriter({ dir: path.join(dir, 'warc'), software: SOFTWARE });
    resumed.write(exchange('https://example.com/after', Buffer.from('after')));
    resumed.close();
    expect(fs.readdirSync(path.join(dir, 'warc'))).toHaveLength(2);
    expect(fs.readFileSync(killedPath)).toEqual(killedBytes);
  });
});
