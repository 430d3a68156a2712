/**
 * Free-form records (a pages.jsonl line, a module record, a site's info) come from page
 * content and module code, so one can be larger than a packet. The sender makes it fit
 * rather than failing the whole batch: it keeps every field it can, cuts long strings and
 * long arrays (ever shorter until it fits), and sets `"truncated": true` at the top. A record
 * nested deeper than MAX_JSON_DEPTH, or holding a cycle, is cut the same way. The receiver
 * only has to accept any JSON object (docs/protocol.md, "A record larger than a packet").
 */

import { ErrorCode, ProtocolError } from './errors.js';
import { jsonDepth } from './fields.js';
import { type JsonObject, MAX_JSON_DEPTH } from './types.js';

/** (longest string kept, most array items and object keys kept), tried in turn. */
const LADDER: readonly [number, number][] = [
  [Number.POSITIVE_INFINITY, Number.POSITIVE_INFINITY],
  [4096, 1024],
  [1024, 256],
  [256, 64],
  [64, 16],
  [16, 4],
];
/** A record with more values than this is cut even before its size is looked at. */
const MAX_NODES = 100_000;
const MARK = '…';

interface Cut {
  maxString: number;
  maxItems: number;
  nodes: number;
  cut: boolean;
  path: Set<object>;
}

/** A JSON-safe copy of `v` within the cut's bounds; undefined for what JSON leaves out. */
function copy(v: unknown, depth: number, c: Cut): unknown {
  switch (typeof v) {
    case 'string':
      if (v.length <= c.maxString) return v;
      c.cut = true;
      return v.slice(0, c.maxString) + MARK;
    case 'number':
      return Number.isFinite(v) ? v : null;
    case 'boolean':
      return v;
    case 'bigint':
      return v.toString();
    case 'object':
      break;
    default:
      return undefined; // functions, symbols, undefined: JSON has none
  }
  if (v === null) return null;
  const withJson = v as { toJSON?: () => unknown };
  if (typeof withJson.toJSON === 'function') {
    let plain: unknown;
    try {
      plain = withJson.toJSON();
    } catch {
      c.cut = true;
      return null;
    }
    return copy(typeof plain === 'object' && plain !== null ? { ...plain } : plain, depth + 1, c);
  }
  if (depth >= MAX_JSON_DEPTH || c.path.has(v) || ++c.nodes > MAX_NODES) {
    c.cut = true;
    return null;
  }
  c.path.add(v);
  let out: unknown;
  if (Array.isArray(v)) {
    if (v.length > c.maxItems) c.cut = true;
    const n = Math.min(v.length, c.maxItems);
    const arr: unknown[] = new Array(n);
    for (let i = 0; i < n; i++) arr[i] = copy(v[i], depth + 1, c) ?? null;
    out = arr;
  } else {
    const obj: JsonObject = {};
    let kept = 0;
    // for...in stops at the cut; Object.entries would first copy every key of a huge object.
    for (const k in v) {
      if (!Object.hasOwn(v, k)) continue;
      if (kept >= c.maxItems) {
        c.cut = true;
        break;
      }
      const y = copy((v as JsonObject)[k], depth + 1, c);
      if (y !== undefined) {
        obj[k] = y;
        kept++;
      }
    }
    out = obj;
  }
  c.path.delete(v);
  return out;
}

function size(json: string): number {
  return Buffer.byteLength(json);
}

/**
 * The JSON text of `record`, at most `maxBytes` bytes: the record itself when it fits and is
 * plain JSON, else a cut copy marked `"truncated": true`. Throws ITEM_TOO_LARGE only when not
 * even `{"truncated":true}` fits.
 */
export function fitRecordJson(record: JsonObject, maxBytes: number): string {
  // The common case costs one depth walk and one stringify.
  let plain = false;
  if (jsonDepth(record, MAX_JSON_DEPTH) <= MAX_JSON_DEPTH) {
    try {
      const json = JSON.stringify(record);
      if (json?.startsWith('{') && size(json) <= maxBytes) return json;
      plain = true;
    } catch {
      // a cycle or a BigInt: the copy below deals with both
    }
  }
  // A plain record that is only too big skips the first step, which changes nothing of it.
  for (const [maxString, maxItems] of plain ? LADDER.slice(1) : LADDER) {
    const c: Cut = { maxString, maxItems, nodes: 0, cut: false, path: new Set() };
    const copied = copy(record, 0, c);
    const obj: JsonObject =
      typeof copied === 'object' && copied !== null && !Array.isArray(copied) ? (copied as JsonObject) : {};
    if (c.cut || maxString !== Number.POSITIVE_INFINITY) obj.truncated = true;
    const json = JSON.stringify(obj);
    if (size(json) <= maxBytes) return json;
  }
  // Still too big: keep the top-level plain values, in order, as long as they fit.
  const kept: JsonObject = { truncated: true };
  let json = JSON.stringify(kept);
  let tried = 0;
  for (const [k, v] of Object.entries(record)) {
    if (++tried > 256) break;
    if (k === 'truncated' || (typeof v === 'object' && v !== null) || typeof v === 'function') continue;
    const c: Cut = { maxString: 64, maxItems: 0, nodes: 0, cut: false, path: new Set() };
    const y = copy(v, 0, c);
    if (y === undefined) continue;
    const trial = { ...kept, [k]: y };
    const trialJson = JSON.stringify(trial);
    if (size(trialJson) > maxBytes) continue;
    kept[k] = y;
    json = trialJson;
  }
  if (size(json) > maxBytes) {
    throw new ProtocolError(
      ErrorCode.ITEM_TOO_LARGE,
      `a record cannot be made to fit in ${maxBytes} bytes, not even as {"truncated":true}`,
    );
  }
  return json;
}
