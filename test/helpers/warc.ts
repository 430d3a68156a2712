import { createReadStream, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { WARCParser } from 'warcio';

/** A WARC record as warcio reads it back. */
export interface WarcRead {
  type: string;
  uri: string | undefined;
  field(name: string): string | null;
  /** The whole block (the HTTP head and body as stored). */
  block: Buffer;
}

/** Every record of every .warc.gz file in `dir`, in file order, read by warcio (not by our code). */
export async function readWarcDir(dir: string): Promise<WarcRead[]> {
  const out: WarcRead[] = [];
  for (const name of readdirSync(dir)
    .filter((f) => f.endsWith('.warc.gz'))
    .sort()) {
    for await (const record of new WARCParser(createReadStream(join(dir, name)), { parseHttp: false })) {
      const block = Buffer.from(await record.readFully(false));
      out.push({
        type: record.warcType ?? '',
        uri: record.warcTargetURI ?? undefined,
        field: (n) => record.warcHeader(n) ?? null,
        block,
      });
    }
  }
  return out;
}
