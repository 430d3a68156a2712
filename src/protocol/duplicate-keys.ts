const QUOTE = 34; // "
const BACKSLASH = 92; // \
const OPEN_OBJECT = 123; // {
const CLOSE_OBJECT = 125; // }
const OPEN_ARRAY = 91; // [
const CLOSE_ARRAY = 93; // ]
const COMMA = 44; // ,
const COLON = 58; // :

/**
 * The first name that appears twice in one object of a JSON text, or null. JSON.parse
 * keeps the last of two equal names without a word (RFC 8259 4 leaves it to the
 * parser); the protocol refuses such a body, so that two peers never read one packet
 * two ways. `text` must be JSON that JSON.parse took: this only walks its structure.
 * Strings are skipped with indexOf, so the walk costs little beside the parse itself.
 */
export function duplicateKey(text: string): string | null {
  // The names seen in each open object; null for an open array. Objects here have a few
  // names each: a list searched in order costs less than a Set made for each.
  const open: (string[] | null)[] = [];
  let expectingName = false;
  const length = text.length;
  let i = 0;
  while (i < length) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      if (expectingName) {
        const names = open[open.length - 1] as string[];
        const raw = text.slice(i + 1, end);
        // Two spellings of one name ("a" and "\u0061") are the same name.
        const name = raw.includes('\\') ? (JSON.parse(text.slice(i, end + 1)) as string) : raw;
        if (names.includes(name)) return name;
        names.push(name);
        expectingName = false;
      }
      i = end + 1;
      continue;
    }
    if (c === OPEN_OBJECT) {
      open.push([]);
      expectingName = true;
    } else if (c === OPEN_ARRAY) {
      open.push(null);
    } else if (c === CLOSE_OBJECT || c === CLOSE_ARRAY) {
      open.pop();
    } else if (c === COMMA) {
      expectingName = open[open.length - 1] != null;
    } else if (c === COLON) {
      expectingName = false;
    }
    i++;
  }
  return null;
}

/** Where the string that opens at `start` ends: the next quote not escaped by a backslash. */
function closingQuote(text: string, start: number): number {
  let at = start + 1;
  for (;;) {
    const quote = text.indexOf('"', at);
    if (quote === -1) return text.length;
    let backslashes = 0;
    for (let k = quote - 1; text.charCodeAt(k) === BACKSLASH; k--) backslashes++;
    if (backslashes % 2 === 0) return quote;
    at = quote + 1;
  }
}
