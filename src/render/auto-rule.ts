// `--render auto`: whether a page's fetched HTML looks built by script, so rendering it
// would find what the HTML alone does not. Measured on the fixture set of
// test/render/auto-rule.test.ts (docs/rendering.md gives its precision and recall).

/** What the rule reads of a page's HTML. */
export interface PageSigns {
  /** Characters of text a reader would see, whitespace collapsed (not scripts, styles, templates). */
  textChars: number;
  /** <script> elements that run (not JSON data blocks). */
  scripts: number;
  /** <a href> elements. */
  anchors: number;
  /** An element a script framework mounts into (id root, app, __next, __nuxt, ...; ng-version; <app-root>). */
  appRoot: boolean;
}

/** Read at most this much of a page: the signs are in its first part, and a huge page is no shell. */
const MAX_CHARS = 512 * 1024;

const NOT_SHOWN = /<(script|style|noscript|template|svg)\b[\s\S]*?<\/\1\s*>/gi;
const SCRIPT = /<script\b([^>]*)>/gi;
const DATA_SCRIPT =
  /\btype\s*=\s*["']?(?:application\/(?:ld\+)?json|text\/template|text\/x-template|importmap)/i;
const ANCHOR = /<a\b[^>]*\bhref\s*=/gi;
const APP_ROOT =
  /<(?:div|main|section|body)\b[^>]*\bid\s*=\s*["']?(?:root|app|__next|__nuxt|___gatsby|svelte|q-app|main-app|react-root|application)["'\s>]|\bng-version\s*=|\bng-app\b|\bdata-reactroot\b|<app-root\b|\bdata-server-rendered\b/i;

export function signsOf(html: string): PageSigns {
  const head = html.length > MAX_CHARS ? html.slice(0, MAX_CHARS) : html;
  let scripts = 0;
  for (const m of head.matchAll(SCRIPT)) if (!DATA_SCRIPT.test(m[1] ?? '')) scripts++;
  const text = head
    .replace(/<!--[\s\S]*?-->/g, ' ')
    .replace(NOT_SHOWN, ' ')
    .replace(/<[^>]*>/g, ' ')
    .replace(/&[a-z#0-9]+;/gi, 'x')
    .replace(/\s+/g, ' ')
    .trim();
  return {
    textChars: text.length,
    scripts,
    anchors: head.match(ANCHOR)?.length ?? 0,
    appRoot: APP_ROOT.test(head),
  };
}

/** Under this much visible text, a page with scripts is taken for a shell its scripts fill. */
export const SHELL_TEXT_CHARS = 300;
/** With an app root, fewer links than this say the page's navigation is not in its HTML. */
export const SHELL_ANCHORS = 5;

/** A page with this many links has its navigation in its HTML, however little text it shows (a gallery). */
export const LINKED_PAGE_ANCHORS = 10;

/**
 * The rule: scripts run on the page, and either it shows almost no text and has few
 * links, or a framework mounts into it and it has almost no links. A server-rendered
 * app (Next.js, Nuxt) has its root and its text and links, and is not rendered again.
 */
export function looksScriptBuilt(html: string): boolean {
  const s = signsOf(html);
  if (s.scripts === 0) return false;
  return (
    (s.textChars < SHELL_TEXT_CHARS && s.anchors < LINKED_PAGE_ANCHORS) ||
    (s.appRoot && s.anchors < SHELL_ANCHORS)
  );
}
