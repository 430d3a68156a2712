/**
 * Splitting a message that does not fit in one packet. A batch (leases, completions, links,
 * ids, ...) goes out as as many packets as needed, each at most the packet limit, all with
 * the message's type and request id, every one but the last with the MORE flag. Each packet
 * is a whole JSON object of its type holding a slice of the lists; join.ts puts them back.
 *
 * The JSON text is built from each item's own JSON, so every size is counted exactly once
 * and nothing is stringified twice.
 */
import { checkBody } from './bodies.js';
import { decodeFrame, encode as encodeOf } from './codec.js';
import { ErrorCode, ProtocolError } from './errors.js';
import { fitRecordJson } from './fit-record.js';
import { encodeOurs, frameJson } from './ours.js';
import {
  type Bodies,
  HEADER_BYTES,
  type JsonObject,
  MAX_PACKET,
  type OurPacket,
  type OurPacketName,
  type Packet,
  type WireCompletion,
  type WireCompletionPart,
} from './types.js';

type Fragment = { json: string };

function bytes(s: string): number {
  return Buffer.byteLength(s);
}

function tooLarge(what: string, size: number, room: number): never {
  throw new ProtocolError(
    ErrorCode.ITEM_TOO_LARGE,
    `${what} is ${size} bytes of JSON, more than the ${room} bytes a packet has room for`,
  );
}

/**
 * Packs the items of `lists` into fragments of at most `room` bytes of JSON each. Items go in
 * order, list after list. Every fragment has all the body's fields in the body's own order
 * (so a message that fits in one packet is byte for byte what encode() makes): each list
 * holds its slice, counts (`added`) are 0 but in the last fragment, other fields repeat.
 */
function packLists(
  type: OurPacketName,
  body: Record<string, unknown>,
  spec: ListSpec,
  room: number,
): Fragment[] {
  const { lists, counts } = spec;
  const render = (slices: string[][], last: boolean) => {
    const parts: string[] = [];
    for (const [key, value] of Object.entries(body)) {
      const li = lists.indexOf(key);
      const json =
        li >= 0
          ? `[${(slices[li] as string[]).join(',')}]`
          : JSON.stringify(counts.includes(key) && !last ? 0 : value);
      if (json !== undefined) parts.push(`${JSON.stringify(key)}:${json}`);
    }
    return `{${parts.join(',')}}`;
  };
  const empty = () => lists.map(() => [] as string[]);
  const base = Math.max(bytes(render(empty(), false)), bytes(render(empty(), true)));
  const fragments: string[][][] = [];
  let slices = empty();
  let used = base;
  let count = 0;
  lists.forEach((name, li) => {
    // An optional list (ACK's lines) the body does not have holds nothing.
    const items = (body[name] as unknown[] | undefined) ?? [];
    const free = spec.free?.includes(name) === true;
    items.forEach((item, i) => {
      const json = free ? fitRecordJson(item as JsonObject, room - base) : JSON.stringify(item);
      const size = bytes(json);
      if (base + size > room) tooLarge(`${type}.${name}[${i}]`, size, room - base);
      if (used + size + ((slices[li] as string[]).length > 0 ? 1 : 0) > room && count > 0) {
        fragments.push(slices);
        slices = empty();
        used = base;
        count = 0;
      }
      const slice = slices[li] as string[];
      used += size + (slice.length > 0 ? 1 : 0);
      slice.push(json);
      count++;
    });
  });
  fragments.push(slices);
  return fragments.map((s, i) => ({ json: render(s, i === fragments.length - 1) }));
}

const ENTRY_LISTS = ['outlinks', 'rejected', 'modules'] as const;

interface Entry {
  head: string;
  lists: [string[], string[], string[]];
}

function renderEntry(e: Entry): string {
  const lists = ENTRY_LISTS.map((name, i) => `"${name}":[${e.lists[i]?.join(',')}]`);
  return `{${e.head},${lists.join(',')}}`;
}

/**
 * COMPLETE: completions go in order; one whose outlinks, rejected links or module records
 * overflow a packet goes on in the next packet as a continuation entry (the same lease, no
 * outcome) holding the rest of its lists.
 */
function packCompletions(
  completions: readonly (WireCompletion | WireCompletionPart)[],
  room: number,
): Fragment[] {
  const frame = (entries: Entry[]) => `{"completions":[${entries.map(renderEntry).join(',')}]}`;
  const base = bytes(frame([]));
  const entryBase = bytes(renderEntry({ head: '', lists: [[], [], []] }));
  const fragments: Fragment[] = [];
  let entries: Entry[] = [];
  let used = base;
  const flush = () => {
    fragments.push({ json: frame(entries) });
    entries = [];
    used = base;
  };
  const open = (head: string, what: string) => {
    const size = entryBase + bytes(head);
    if (base + size > room) tooLarge(what, size, room - base);
    if (used + size + (entries.length > 0 ? 1 : 0) > room && entries.length > 0) flush();
    const entry: Entry = { head, lists: [[], [], []] };
    used += size + (entries.length > 0 ? 1 : 0);
    entries.push(entry);
    return entry;
  };
  completions.forEach((c, ci) => {
    const lease = JSON.stringify(c.lease);
    const partHead = `"lease":${lease}`;
    let entry: Entry;
    if ('outcome' in c) {
      const form = c.hasForm === undefined ? '' : `,"hasForm":${c.hasForm}`;
      const noPage = `${partHead},"outcome":${JSON.stringify(c.outcome)},"report":${JSON.stringify(c.report)}${form},"page":`;
      const pageRoom = room - base - entryBase - bytes(noPage);
      if (pageRoom < 64) tooLarge(`COMPLETE.completions[${ci}] without its page`, bytes(noPage), room - base);
      const page = c.page === null ? 'null' : fitRecordJson(c.page, pageRoom);
      entry = open(noPage + page, `COMPLETE.completions[${ci}]`);
    } else {
      entry = open(partHead, `COMPLETE.completions[${ci}]`);
    }
    // Room for one list item in a packet that holds only its continuation entry.
    const itemRoom = room - base - entryBase - bytes(partHead);
    ENTRY_LISTS.forEach((name, li) => {
      c[name].forEach((item, i) => {
        let json: string;
        if (name === 'modules') {
          const m = item as WireCompletion['modules'][number];
          const prefix = `{"module":${JSON.stringify(m.module)},"record":`;
          json = `${prefix}${fitRecordJson(m.record, itemRoom - bytes(prefix) - 1)}}`;
        } else {
          json = JSON.stringify(item);
        }
        const size = bytes(json);
        if (size > itemRoom) tooLarge(`COMPLETE.completions[${ci}].${name}[${i}]`, size, itemRoom);
        const list = entry.lists[li] as string[];
        const cost = size + (list.length > 0 ? 1 : 0);
        if (used + cost > room) {
          flush();
          entry = open(partHead, `COMPLETE.completions[${ci}]`);
        }
        const target = entry.lists[li] as string[];
        used += size + (target.length > 0 ? 1 : 0);
        target.push(json);
      });
    });
  });
  flush();
  return fragments;
}

/** MODULE: the source text is cut into pieces; name and sha256 repeat in every packet. */
function packSource(body: Bodies['MODULE'], room: number): Fragment[] {
  const prefix = `{"name":${JSON.stringify(body.name)},"sha256":${JSON.stringify(body.sha256)},"source":`;
  const left = room - bytes(prefix) - 1;
  if (left < 16) tooLarge('MODULE.name', bytes(prefix), room);
  const src = body.source;
  const fragments: Fragment[] = [];
  let at = 0;
  do {
    // The longest piece whose JSON fits: binary search, as escapes make bytes per character vary.
    let lo = 0;
    let hi = Math.min(src.length - at, left);
    while (lo < hi) {
      const mid = Math.ceil((lo + hi) / 2);
      if (bytes(JSON.stringify(src.slice(at, at + mid))) <= left) lo = mid;
      else hi = mid - 1;
    }
    // Never end a piece between the two halves of a surrogate pair.
    const last = src.charCodeAt(at + lo - 1);
    if (lo > 1 && at + lo < src.length && last >= 0xd800 && last <= 0xdbff) lo--;
    fragments.push({ json: `${prefix}${JSON.stringify(src.slice(at, at + lo))}}` });
    at += lo;
  } while (at < src.length);
  return fragments;
}

/** A splittable body's lists, its counts (summed when joined), and its lists of free-form records (cut to fit). */
interface ListSpec {
  lists: string[];
  counts: string[];
  free?: string[];
}

const LISTS: Partial<Record<OurPacketName, ListSpec>> = {
  LEASES: { lists: ['leases'], counts: [] },
  COMPLETED: { lists: ['stale', 'records'], counts: ['added'] },
  RELEASE: { lists: ['releases'], counts: [] },
  EXTEND: { lists: ['leases'], counts: [] },
  EXTENDED: { lists: ['leases', 'stale'], counts: [] },
  ADD: { lists: ['links', 'rejected'], counts: [] },
  ADDED: { lists: ['records'], counts: ['added'] },
  ACK: { lists: ['ids', 'lines'], counts: [], free: ['lines'] },
  COOKIEJAR: { lists: ['cookies'], counts: [] },
  SAVECOOKIES: { lists: ['cookies'], counts: [] },
  ROBOTSREPLY: { lists: ['text'], counts: [] },
  SAVEROBOTS: { lists: ['text'], counts: [] },
  SEEDS: { lists: ['origins', 'addresses'], counts: [] },
  SEEDLIST: { lists: ['origins', 'addresses'], counts: [] },
};

/** RECORDSITE: its info is a free-form record, cut to fit like a page record. */
function fitSite(body: Bodies['RECORDSITE'], room: number): Fragment[] {
  const { origin, address, firstSeen } = body;
  const prefix = `${JSON.stringify({ origin, address, firstSeen }).slice(0, -1)},"info":`;
  return [{ json: `${prefix}${fitRecordJson(body.info, room - bytes(prefix) - 1)}}` }];
}

/**
 * The bytes of a message: one packet, or several when it is a batch too large for one
 * (`maxPacket`, at most 65,535, is the limit of each). Throws ProtocolError: a field that
 * cannot be sent, or ITEM_TOO_LARGE when one item alone cannot fit.
 */
export function encodeMessage(packet: Packet, maxPacket = MAX_PACKET): Buffer[] {
  if (!('requestId' in packet)) return [encodeSingle(packet, maxPacket)];
  const room = Math.min(maxPacket, MAX_PACKET) - HEADER_BYTES;
  const body = checkBody(packet.type, packet.body, true) as Record<string, unknown>;
  let fragments: Fragment[];
  const spec = LISTS[packet.type];
  if (spec !== undefined) fragments = packLists(packet.type, body, spec, room);
  else if (packet.type === 'COMPLETE')
    fragments = packCompletions(body.completions as WireCompletion[], room);
  else if (packet.type === 'MODULE') fragments = packSource(body as Bodies['MODULE'], room);
  else if (packet.type === 'RECORDSITE') fragments = fitSite(body as Bodies['RECORDSITE'], room);
  else return [encodeSingle(packet, maxPacket)];
  return fragments.map((f, i) =>
    frameJson(packet.type, packet.requestId, packet.more || i < fragments.length - 1, f.json),
  );
}

function encodeSingle(packet: Packet, maxPacket: number): Buffer {
  const frame = 'requestId' in packet ? encodeOurs(packet) : encodeOf(packet);
  if (frame.length > maxPacket) {
    throw new ProtocolError(
      ErrorCode.ITEM_TOO_LARGE,
      `${packet.type} is ${frame.length} bytes, over the ${maxPacket}-byte limit, and cannot be split`,
    );
  }
  return frame;
}

/** The packets a message splits into, as objects (what the receiver decodes, fragment by fragment). */
export function splitMessage(packet: OurPacket, maxPacket = MAX_PACKET): OurPacket[] {
  return encodeMessage(packet, maxPacket).map((frame) => decodeFrame(frame) as OurPacket);
}
