// `--render auto`: whether a page's fetched HTML looks built by script, so rendering it
// would find what the HTML alone does not. Measured in test/render/auto-rule.test.ts on
// the sets it was tuned on and on a held-out set (docs/options.md gives the figures).

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
  /**
   * An empty element named as a mount point (those ids, or an id with an `app` or `root`
   * part: `vue-app`, `storybook-root`): the page's main content is not in its HTML.
   */
  emptyRoot: boolean;
  /** A form with a field: a page that asks for input was written by its server (a sign-in page). */
  form: boolean;
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

/** The ids of the elements the frameworks mount into, as in APP_ROOT. */
const ROOT_IDS = 'root|app|__next|__nuxt|___gatsby|svelte|q-app|main-app|react-root|application';
const EMPTY_ROOT = new RegExp(
  `<(div|main|section)\\b[^>]*\\bid\\s*=\\s*["']?(?:${ROOT_IDS}|[\\w-]*[-_](?:app|root)|(?:app|root)[-_][\\w-]*)(?=["'\\s>])[^>]*>\\s*</\\1\\s*>|<app-root\\b[^>]*>\\s*</app-root\\s*>`,
  'i',
);
// Bounded, so a page of many empty forms costs no more than one scan each.
const FORM = /<form\b[\s\S]{0,4000}?<(?:input|select|textarea)\b/i;

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
    emptyRoot: EMPTY_ROOT.test(head),
    form: FORM.test(head),
  };
}

/** Under this much visible text, a page with scripts is taken for a shell its scripts fill. */
export const SHELL_TEXT_CHARS = 300;
/** With an app root, fewer links than this say the page's navigation is not in its HTML. */
export const SHELL_ANCHORS = 5;

/** A page with this many links has its navigation in its HTML, however little text it shows (a gallery). */
export const LINKED_PAGE_ANCHORS = 10;

/**
 * An empty mount point beside this much text or more is taken for a widget's (a chat, a
 * consent form) on a page written whole; under it, for the page's own app, around which
 * the server wrote only a banner or a footer.
 */
export const EMPTY_ROOT_TEXT_CHARS = 1000;

/**
 * The rule: scripts run on the page, and either it shows almost no text, has few links
 * and asks for no input, or a framework mounts into it and it has almost no links and
 * little text, or the element a framework mounts into is empty and the page has little
 * text around it (a consent banner, a footer). A server-rendered app (Next.js, Nuxt)
 * has its root filled, and its text and links, and is not rendered again.
 */
export function looksScriptBuilt(html: string): boolean {
  const s = signsOf(html);
  if (s.scripts === 0) return false;
  return (
    (s.textChars < SHELL_TEXT_CHARS && s.anchors < LINKED_PAGE_ANCHORS && !s.form) ||
    (s.appRoot && s.anchors < SHELL_ANCHORS && s.textChars < EMPTY_ROOT_TEXT_CHARS) ||
    (s.emptyRoot && s.textChars < EMPTY_ROOT_TEXT_CHARS)
  );
}
