/**
 * The parameters of a statement put together from parts (a completion's writes are one
 * statement of several data-modifying CTEs): each part asks for its values' placeholders
 * in turn. The same parts in the same order give the same text, so a statement is still
 * prepared once per connection (Database names each text once).
 */
export class Params {
  readonly values: unknown[] = [];

  /** `$n` for this value. */
  add(value: unknown): string {
    this.values.push(value);
    return `$${this.values.length}`;
  }
}

/** A data-modifying statement for a WITH list, or nothing to do. */
export type Part = string | null;

/** `WITH a AS (...), b AS (...) ` for the parts there are; empty when none. */
export function withParts(parts: Readonly<Record<string, Part>>): string {
  const present = Object.entries(parts).filter((e): e is [string, string] => e[1] !== null);
  return present.length === 0
    ? ''
    : `WITH ${present.map(([name, sql]) => `${name} AS (${sql})`).join(',\n')}\n`;
}
