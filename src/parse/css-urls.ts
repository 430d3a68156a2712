// The URLs a stylesheet needs: what its url() tokens and @import rules name. A regular
// scan, not a CSS parser: comments are removed first, and a url() inside a string is
// read as a url() too, which fetches a file a browser might not; for page requisites an
// extra file is cheaper than a missing one.

/** Largest stylesheet text scanned: a hostile 10 MB one must not cost seconds of regex. */
const MAX_CSS_CHARS = 2 * 1024 * 1024;

const COMMENT = /\/\*[\s\S]*?(?:\*\/|$)/g;
// url( "a" ) | url('a') | url(a); the unquoted form stops at whitespace, quote or paren
// that no backslash escapes.
const URL_TOKEN = /url\(\s*(?:"([^"]*)"|'([^']*)'|((?:[^\s"'()\\]|\\[\s\S])+))\s*\)/gi;
// @import "a.css"; @import 'a.css' (the url() form is found by URL_TOKEN).
const IMPORT_STRING = /@import\s+(?:"([^"]*)"|'([^']*)')/gi;

/** The URLs named in a stylesheet's text, raw (not resolved), each once, in order met. */
export function cssUrls(css: string): string[] {
  const text = (css.length > MAX_CSS_CHARS ? css.slice(0, MAX_CSS_CHARS) : css).replace(COMMENT, ' ');
  const found = new Set<string>();
  for (const pattern of [IMPORT_STRING, URL_TOKEN]) {
    for (const m of text.matchAll(pattern)) {
      const raw = unescapeCss((m[1] ?? m[2] ?? m[3] ?? '').trim());
      // data: URLs are the file itself, not a file to fetch; '#x' names an SVG fragment.
      if (raw.length === 0 || raw.startsWith('#') || /^data:/i.test(raw)) continue;
      found.add(raw);
    }
  }
  return [...found];
}

/** CSS escapes in a URL: a backslash and up to six hex digits (and one space), or a backslash and a character. */
function unescapeCss(value: string): string {
  if (!value.includes('\\')) return value;
  return value.replace(
    /\\(?:([0-9a-fA-F]{1,6})\s?|([\s\S]))/g,
    (_m, hex: string | undefined, char: string | undefined) => {
      if (hex === undefined) return char ?? '';
      const code = Number.parseInt(hex, 16);
      return code > 0 && code <= 0x10ffff ? String.fromCodePoint(code) : '\ufffd';
    },
  );
}
