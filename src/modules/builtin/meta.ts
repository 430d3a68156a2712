import type { CobwebModule, PageFacts } from '../api.js';

export interface PageMeta {
  title: string | null;
  description: string | null;
  canonical: string | null;
  language: string | null;
}

/** The head's metadata, from the page's facts. */
export function metaOf(facts: PageFacts): PageMeta {
  const description = facts.meta.find((m) => m.name === 'description')?.content.trim();
  return {
    title: facts.title,
    description: description ?? null,
    canonical: facts.canonical,
    language: facts.language,
  };
}

/**
 * meta: each HTML page's title, description, canonical link, language and Last-Modified,
 * to data/meta.jsonl. It reads the page's facts: the crawl's own parse found them.
 */
const meta: CobwebModule = {
  name: 'meta',
  onPage(page, ctx) {
    if (page.facts === null) return undefined;
    ctx.emit({ url: page.url, ...metaOf(page.facts), lastModified: page.headers['last-modified'] ?? null });
    return undefined;
  },
};

export default meta;
