import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { WARCParser } from 'warcio';
import type { PackedExchange } from '../../src/output/packed-exchange.js';
import { WarcThread } from '../../src/output/warc-thread.js';

let dir: string;
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cobweb-warc-thread-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

/** One exchange's bytes packed as a fetch packs them, with a body of `size` bytes. */
function packed(url: string, size: number): PackedExchange {
  const request = Buffer.from(`GET ${new URL(url).pathname} HTTP/1.1\r\nhost: example.test\r\n\r\n`);
  const response = Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${size}\r\n\r\n`);
  const body = Buffer.alloc(size, url);
  const bytes = Buffer.concat([request, response, body]);
  const copy = new Uint8Array(bytes.length);
  copy.set(bytes);
  const rawBody = { offset: request.length + response.length, length: size };
  return {
    url,
    date: new Date('2026-12-02T10:00:00Z'),
    remoteAddress: '192.0.2.1',
    buffer: copy.buffer,
    requestHead: { offset: 0, length: request.length },
    responseHead: { offset: request.length, length: response.length },
    rawBody,
    body: rawBody,
  };
}

async function recordsOf(
  file: string,
): Promise<{ type: string | undefined; uri: string | null | undefined }[]> {
  const out = [];
  for await (const record of WARCParser.iterRecords(fs.createReadStream(file))) {
    await record.readFully(false);
    out.push({ type: record.warcType, uri: record.warcTargetURI });
  }
  return out;
}

const urls = (from: number, to: number) =>
  Array.from({ length: to - from }, (_, i) => `http://example.test/p${from + i}`);

describe('WarcThread', () => {
  it('writes a short crawl on the crawl thread and starts no thread', async () => {
    const warc = new WarcThread({ dir, software: 'test' });
    await warc.write(urls(0, 3).map((u) => packed(u, 1000)));
    expect(warc.onThread).toBe(false);
    await warc.close();
    expect(warc.files).toHaveLength(1);
    const records = await recordsOf(warc.files[0] as string);
    expect(records.map((r) => r.type)).toEqual([
      'warcinfo',
      ...Array(3).fill(['request', 'response']).flat(),
    ]);
  });

  it('moves to its thread past its threshold and goes on in the same file, in order', async () => {
    const warc = new WarcThread({ dir, software: 'test' }, 10_000);
    // Under the threshold, then past it: the thread starts, and the crawl thread goes on
    // writing until it is ready.
    await warc.write(urls(0, 2).map((u) => packed(u, 4000)));
    expect(warc.onThread).toBe(false);
    await warc.write(urls(2, 4).map((u) => packed(u, 4000)));
    for (let i = 4; !warc.onThread; i++) {
      expect(i).toBeLessThan(10_000);
      await warc.write([packed(`http://example.test/p${i}`, 100)]);
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const before = (await recordsOf(warc.files[0] as string)).length;
    const onThread = [packed('http://example.test/late-1', 2000), packed('http://example.test/late-2', 2000)];
    await warc.write(onThread);
    // Moved, not copied: the crawl's thread holds the bytes no more.
    expect(onThread[0]?.buffer.byteLength).toBe(0);
    await warc.close();
    expect(warc.files).toHaveLength(1);
    const records = await recordsOf(warc.files[0] as string);
    expect(records).toHaveLength(before + 4);
    expect(records.filter((r) => r.type === 'warcinfo')).toHaveLength(1);
    const responses = records.filter((r) => r.type === 'response').map((r) => r.uri);
    expect(responses.slice(0, 4)).toEqual(urls(0, 4));
    expect(responses.slice(-2)).toEqual(['http://example.test/late-1', 'http://example.test/late-2']);
    expect(warc.bytesWritten).toBe(fs.statSync(warc.files[0] as string).size);
  });
});
