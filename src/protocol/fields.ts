/**
 * Field checks for JSON bodies. Each returns the value typed, or throws BAD_FIELD naming the
 * field by its path (`LEASES.leases[3].depth`), so the sender learns exactly what was wrong.
 * Unknown fields are ignored, so a newer peer may add fields.
 */
import { ErrorCode, ProtocolError } from './errors.js';
import { type JsonObject, MAX_JSON_DEPTH } from './types.js';

export function bad(where: string, what: string): never {
  throw new ProtocolError(ErrorCode.BAD_FIELD, `${where} ${what}`);
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function object(v: unknown, where: string): JsonObject {
  if (!isObject(v)) bad(where, 'must be a JSON object');
  return v;
}

export function string(o: JsonObject, key: string, where: string, nonEmpty = false): string {
  const v = o[key];
  if (typeof v !== 'string') bad(`${where}.${key}`, 'must be a string');
  if (nonEmpty && v.length === 0) bad(`${where}.${key}`, 'must not be empty');
  return v;
}

export function nullableString(o: JsonObject, key: string, where: string): string | null {
  const v = o[key];
  if (v === null) return null;
  if (typeof v !== 'string') bad(`${where}.${key}`, 'must be a string or null');
  return v;
}

/** A safe integer >= min. */
export function integer(o: JsonObject, key: string, where: string, min = 0, max?: number): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < min) {
    bad(`${where}.${key}`, `must be an integer >= ${min}`);
  }
  if (max !== undefined && v > max) bad(`${where}.${key}`, `must be an integer from ${min} to ${max}`);
  return v;
}

export function nullableInteger(o: JsonObject, key: string, where: string): number | null {
  return o[key] === null ? null : integer(o, key, where);
}

/** A finite number >= 0 (durations may have fractions). */
export function duration(o: JsonObject, key: string, where: string): number {
  const v = o[key];
  if (typeof v !== 'number' || !Number.isFinite(v) || v < 0) bad(`${where}.${key}`, 'must be a number >= 0');
  return v;
}

export function boolean(o: JsonObject, key: string, where: string): boolean {
  const v = o[key];
  if (typeof v !== 'boolean') bad(`${where}.${key}`, 'must be true or false');
  return v;
}

export function oneOf<T extends string>(o: JsonObject, key: string, where: string, values: readonly T[]): T {
  const v = o[key];
  if (typeof v !== 'string' || !(values as readonly string[]).includes(v)) {
    bad(`${where}.${key}`, `must be one of ${values.map((x) => `"${x}"`).join(', ')}`);
  }
  return v as T;
}

/** An array field, each item checked by `item`. `optional`: absent means empty. */
export function array<T>(
  o: JsonObject,
  key: string,
  where: string,
  item: (v: unknown, where: string) => T,
  optional = false,
): T[] {
  const v = o[key];
  if (v === undefined && optional) return [];
  if (!Array.isArray(v)) bad(`${where}.${key}`, 'must be an array');
  const out: T[] = new Array(v.length);
  for (let i = 0; i < v.length; i++) out[i] = item(v[i], `${where}.${key}[${i}]`);
  return out;
}

export function stringItem(v: unknown, where: string): string {
  if (typeof v !== 'string' || v.length === 0) bad(where, 'must be a non-empty string');
  return v;
}

/**
 * A free-form JSON object (a pages.jsonl record, a module record, site info), nested at most
 * MAX_JSON_DEPTH deep: deeper values could overflow the stack of whoever writes them out.
 */
export function freeObject(v: unknown, where: string): JsonObject {
  const o = object(v, where);
  if (jsonDepth(o, MAX_JSON_DEPTH) > MAX_JSON_DEPTH) {
    bad(where, `nests deeper than ${MAX_JSON_DEPTH} levels of objects and arrays`);
  }
  return o;
}

/**
 * How deep objects and arrays nest in `value` (a scalar is 0, `{}` is 1), counted without
 * recursion; stops counting past `limit` and returns limit + 1.
 */
export function jsonDepth(value: unknown, limit: number): number {
  if (typeof value !== 'object' || value === null) return 0;
  let deepest = 0;
  const stack: [unknown, number][] = [[value, 1]];
  while (stack.length > 0) {
    const [v, d] = stack.pop() as [unknown, number];
    if (d > deepest) {
      deepest = d;
      if (deepest > limit) return limit + 1;
    }
    const children = Array.isArray(v) ? v : Object.values(v as object);
    for (const c of children) if (typeof c === 'object' && c !== null) stack.push([c, d + 1]);
  }
  return deepest;
}
