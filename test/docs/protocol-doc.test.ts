import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { withDefaults } from '../../src/options/options.js';
import {
  ErrorCode,
  encode,
  type Message,
  MessageJoiner,
  type Packet,
  PacketCode,
  PacketDecoder,
  parseSiteLine,
} from '../../src/protocol/index.js';
import { settingsForBunnies } from '../../src/server/bunny-settings.js';
import { codeBlockAfter } from '../helpers/doc-blocks.js';
import { FIXTURES } from '../protocol/fixtures.js';

// docs/protocol.md is meant to be enough to write a client from: its hex examples are
// decoded here and must be byte for byte the fixtures the codec is tested with.
const DOC = 'docs/protocol.md';
const text = readFileSync(join(import.meta.dirname, '../..', DOC), 'utf8');
const names = [...text.matchAll(/<!-- hex (.+?) -->/g)].map((m) => m[1] as string);

/** The bytes of a hex example: hex byte pairs, "quoted text", and lines of JSON text; `#` starts a comment. */
function exampleBytes(block: string): Buffer {
  const parts: Buffer[] = [];
  for (const raw of block.split('\n')) {
    const line = raw.replace(/\s+#\s.*$/, '').trimEnd();
    if (line === '') continue;
    if (line.startsWith('{')) {
      parts.push(Buffer.from(line, 'utf8'));
      continue;
    }
    let rest = line;
    const quoted = /^"(.*)"(.*)$/.exec(rest);
    if (quoted) {
      parts.push(Buffer.from(quoted[1] as string, 'utf8'));
      rest = quoted[2] as string;
    }
    for (const token of rest.trim().split(/\s+/)) {
      if (token === '') continue;
      if (!/^[0-9a-f]{2}$/.test(token)) throw new Error(`"${token}" in "${raw}" is not a hex byte`);
      parts.push(Buffer.from([Number.parseInt(token, 16)]));
    }
  }
  return Buffer.concat(parts);
}

function decodeExample(name: string, bytes: Buffer): Packet[] {
  const decoder = new PacketDecoder();
  if (name.startsWith('DEQUEUE reply')) decoder.expectDequeueReply();
  const r = decoder.push(bytes);
  expect(r.error).toBeNull();
  expect(decoder.partialBytes).toBe(0);
  return r.packets;
}

describe(`the hex examples of ${DOC}`, () => {
  it('show every packet the fixtures show', () => {
    for (const f of FIXTURES) expect(names, f.name).toContain(f.name);
  });

  it.each(names)('%s decodes, and is the fixture byte for byte', (name) => {
    const bytes = exampleBytes(codeBlockAfter(DOC, `<!-- hex ${name} -->`));
    const packets = decodeExample(name, bytes);
    const fixture = FIXTURES.find((f) => f.name === name);
    if (fixture !== undefined) {
      expect(packets).toEqual([fixture.packet]);
      expect(bytes.equals(fixture.bytes)).toBe(true);
      expect(encode(fixture.packet).equals(bytes)).toBe(true);
      return;
    }
    // The split examples: several packets that join into one message of the named type.
    expect(packets.length).toBeGreaterThan(1);
    const joiner = new MessageJoiner();
    const joined = packets.map((p) => joiner.push(p)).filter((m): m is Message => m !== null);
    expect(joined).toHaveLength(1);
    expect(joined[0]?.type).toBe(name.split(',')[0]);
  });

  it('join the split COMPLETE into one completion with both outlinks', () => {
    const bytes = exampleBytes(codeBlockAfter(DOC, '<!-- hex COMPLETE, split in two -->'));
    const joiner = new MessageJoiner();
    const joined = decodeExample('COMPLETE', bytes).map((p) => joiner.push(p));
    expect(joined.at(-1)).toMatchObject({
      type: 'COMPLETE',
      body: {
        completions: [
          {
            lease: 'L17',
            outlinks: [{ url: 'http://a.test/1' }, { url: 'http://a.test/2' }],
            rejected: [],
            modules: [],
          },
        ],
      },
    });
  });
});

describe(`the tables of ${DOC}`, () => {
  it('list every type code', () => {
    for (const [name, code] of Object.entries(PacketCode)) expect(text).toContain(`| ${code} | ${name} |`);
  });

  it('list every error code', () => {
    for (const [name, code] of Object.entries(ErrorCode)) expect(text).toContain(`| ${code} | ${name} |`);
  });

  it('list every WELCOME setting cobweb server sends, and no other', () => {
    const table = text.slice(text.indexOf('<!-- welcome settings -->'));
    const rows = table.slice(0, table.indexOf('\n\n'));
    const documented = [...rows.matchAll(/^\| `(\w+)` \|/gm)].map((m) => m[1]);
    const sent = Object.keys(settingsForBunnies(withDefaults({ seeds: [] }), []));
    expect(documented.sort()).toEqual(sent.sort());
  });

  it('name every reason a link filter gives', () => {
    const section = text.slice(text.indexOf('#### Links: the canonical form and the filter'));
    const reasons = ['scope', 'exclude', 'include', 'substring', 'extension'];
    const traps = ['path-depth', 'repeated-segment', 'query-params', 'depth', 'redirects'];
    for (const r of [...reasons, ...traps, 'too-long']) expect(section).toContain(`\`${r}\``);
  });

  it('show a log line that reads as a site', () => {
    const line = codeBlockAfter(DOC, '## The log file');
    expect(parseSiteLine(line.trim())).toMatchObject({ origin: 'http://example.com', port: 80, count: 12 });
  });
});
