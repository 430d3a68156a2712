import { Parser } from 'htmlparser2';
import type { CobwebModule } from '../api.js';

export interface PageMeta {
  title: string | null;
  description: string | null;
  canonical: string | null;
  language: string | null;
}

/**
 * The head's metadata. Only the text up to `</head>` is parsed: that is where all of it
 * lives, and it spares parsing the body of every page.
 */
export function metaOf(html: string, pageUrl: string): PageMeta {
  const meta: PageMeta = { title: null, description: null, canonical: null, language: null };
  let inTitle = false;
  let title = '';
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'html' && attrs.lang !== undefined) meta.language = attrs.lang.trim() || null;
        else if (name === 'title' && meta.title === null) inTitle = true;
        else if (
          name === 'meta' &&
          attrs.name?.toLowerCase() === 'description' &&
          meta.description === null
        ) {
          meta.description = attrs.content?.trim() ?? null;
        } else if (name === 'link' && meta.canonical === null && attrs.href !== undefined) {
          const rel = ` ${(attrs.rel ?? '').toLowerCase()} `;
          if (/\scanonical\s/.test(rel)) meta.canonical = URL.parse(attrs.href, pageUrl)?.href ?? null;
        }
      },
      ontext(text) {
        if (inTitle) title += text;
      },
      onclosetag(name) {
        if (name === 'title' && inTitle) {
          inTitle = false;
          meta.title = title.replace(/\s+/g, ' ').trim() || null;
        }
      },
    },
    { decodeEntities: true },
  );
  const headEnd = html.search(/<\/head\s*>|<body[\s>]/i);
  parser.write(headEnd === -1 ? html : html.slice(0, headEnd));
  parser.end();
  return meta;
}

/** meta: each HTML page's title, description, canonical link, language and Last-Modified, to data/meta.jsonl. */
const meta: CobwebModule = {
  name: 'meta',
  onPage(page, ctx) {
    if (page.html === null) return undefined;
    ctx.emit({
      url: page.url,
      ...metaOf(page.html, page.url),
      lastModified: page.headers['last-modified'] ?? null,
    });
    return undefined;
  },
  selfTest() {
    const m = metaOf(
      '<html lang=en><head><title> A  b </title><meta name="Description" content="d"><link rel="canonical" href="/c"></head>',
      'http://a.test/x',
    );
    if (
      m.title !== 'A b' ||
      m.description !== 'd' ||
      m.canonical !== 'http://a.test/c' ||
      m.language !== 'en'
    ) {
      throw new Error(`metadata extraction is broken: ${JSON.stringify(m)}`);
    }
  },
};

export default meta;
