// Which hash makes cobweb's 64-bit URL fingerprints: the candidates, timed on crawl-shaped URLs.
// Run: node --import tsx bench/seen/fingerprint-candidates.ts
// The npm candidates are measured when installed (they are not cobweb dependencies):
//   npm install --no-save xxhash-wasm@1.1.0 @node-rs/xxhash@1.7.8
import { hash } from 'node:crypto';
import { fingerprints } from '../../src/seen/fingerprint.js';
import { describeMachine } from '../report.js';
import { CrawlStream } from './stream.js';

const COUNT = 1_000_000;
const ROUNDS = 5;

type Candidate = { name: string; run: (urls: readonly string[], out: BigUint64Array) => void };

/** FNV-1a 64 over the UTF-16 code units of ASCII text, in 16-bit limbs (JavaScript has no 64-bit multiply). */
function fnv1a64(urls: readonly string[], out: BigUint64Array): void {
  const words = new Uint32Array(out.buffer);
  for (let u = 0; u < urls.length; u++) {
    const text = urls[u] as string;
    let h0 = 0x2325;
    let h1 = 0x8422;
    let h2 = 0x9ce4;
    let h3 = 0xcbf2;
    for (let i = 0; i < text.length; i++) {
      h0 ^= text.charCodeAt(i);
      // h * 0x100000001b3 = h * 0x1b3 + (h << 40)
      const t0 = h0 * 0x1b3;
      const t1 = h1 * 0x1b3 + (t0 >>> 16);
      const t2 = h2 * 0x1b3 + (t1 >>> 16) + ((h0 << 8) & 0xffffff);
      const t3 = h3 * 0x1b3 + (t2 >>> 16) + ((h1 << 8) & 0xffffff);
      h0 = t0 & 0xffff;
      h1 = t1 & 0xffff;
      h2 = t2 & 0xffff;
      h3 = t3 & 0xffff;
    }
    words[2 * u] = ((h1 << 16) | h0) >>> 0;
    words[2 * u + 1] = ((h3 << 16) | h2) >>> 0;
  }
}

async function optional(name: string, load: () => Promise<Candidate['run']>): Promise<Candidate | undefined> {
  try {
    return { name, run: await load() };
  } catch {
    console.log(`- ${name}: not installed, skipped`);
    return undefined;
  }
}

async function main(): Promise<void> {
  const stream = new CrawlStream({ distinct: COUNT * 10, seed: 7 });
  const urls: string[] = [];
  stream.nextPages(Math.ceil(COUNT / 25), urls, new Uint8Array(COUNT * 3));
  urls.length = Math.min(urls.length, COUNT);
  const candidates: Candidate[] = [
    { name: 'MurmurHash3 x86_128 (64 bits), cobweb, JavaScript', run: (u, out) => fingerprints(u, out) },
    { name: 'FNV-1a 64, JavaScript (16-bit limbs)', run: fnv1a64 },
    {
      name: 'SHA-1 (64 bits), node:crypto one-shot',
      run: (u, out) => {
        for (let i = 0; i < u.length; i++) out[i] = hash('sha1', u[i] as string, 'buffer').readBigUInt64LE(0);
      },
    },
    {
      name: 'MD5 (64 bits), node:crypto one-shot',
      run: (u, out) => {
        for (let i = 0; i < u.length; i++) out[i] = hash('md5', u[i] as string, 'buffer').readBigUInt64LE(0);
      },
    },
  ];
  const wasm = await optional('xxHash64, xxhash-wasm (WebAssembly)', async () => {
    const { default: load } = (await import('xxhash-wasm' as string)) as {
      default: () => Promise<{ h64: (text: string) => bigint }>;
    };
    const { h64 } = await load();
    return (u, out) => {
      for (let i = 0; i < u.length; i++) out[i] = h64(u[i] as string);
    };
  });
  const native = await optional('xxHash64, @node-rs/xxhash (native)', async () => {
    const { xxh64 } = (await import('@node-rs/xxhash' as string)) as { xxh64: (text: string) => bigint };
    return (u, out) => {
      for (let i = 0; i < u.length; i++) out[i] = xxh64(u[i] as string);
    };
  });
  for (const candidate of [wasm, native]) if (candidate) candidates.push(candidate);

  const out = new BigUint64Array(urls.length);
  const best = new Map<string, number>();
  // Rounds alternate the candidates, so a busy spell of a shared machine hits them all.
  for (let round = 0; round < ROUNDS; round++) {
    for (const candidate of candidates) {
      const start = performance.now();
      candidate.run(urls, out);
      const ns = ((performance.now() - start) * 1e6) / urls.length;
      best.set(candidate.name, Math.min(best.get(candidate.name) ?? Number.POSITIVE_INFINITY, ns));
    }
  }
  console.log(describeMachine());
  console.log(
    `${urls.length} URLs, ${(urls.reduce((n, u) => n + u.length, 0) / urls.length).toFixed(0)} characters on average; best of ${ROUNDS} rounds\n`,
  );
  console.log('| hash | ns per URL |\n|---|---|');
  for (const [name, ns] of [...best].sort((a, b) => a[1] - b[1]))
    console.log(`| ${name} | ${ns.toFixed(0)} |`);
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
