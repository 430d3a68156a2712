import { type PageFacts, parseHtml } from '../parse/html.js';
import { KnownUrls } from './known-urls.js';
import { LinkCache, type LinkVerdict } from './link-cache.js';
import { type LinkRules, tooLong } from './links.js';

/** One fetched HTML page to make sense of. */
export interface AnalysisInput {
  /** The body, content-decoded. */
  body: Uint8Array;
  /** The URL it was fetched from: hrefs resolve against it (or its <base href>). */
  url: string;
  contentType: string | null;
  /** Hops from a seed: the page's links are one more. */
  depth: number;
  /**
   * The URL's first lease: its links may be left out when this analyzer sent them lately.
   * A page leased again (its lease expired, or its completion was refused) may be the one
   * that sent them, with a completion the store never kept: it sends all its links.
   */
  firstTry: boolean;
  /** An error page: only its title is wanted; its links are not followed. */
  titleOnly: boolean;
}

/** What the one parse of a page yields, ready for the page's line, its completion and the modules. */
export interface PageAnalysis {
  charset: string;
  title: string | null;
  hasForm: boolean;
  noindex: boolean;
  facts: PageFacts;
  /** Every distinct canonical http(s) URL the page links to, followed or not, joined by '\n'. */
  links: string;
  /** How many those are. */
  outlinks: number;
  /** Links to queue (canonical, filtered), one hop deeper, found on the page; less those sent lately. */
  accepted: string[];
  /** Links the rules refuse, with why; less those sent lately. */
  rejected: { url: string; reason: string }[];
  /**
   * With --requisites: what the page needs to be shown (canonical, filtered but for the
   * extension filter and --max-depth), each once; queued as requisites one hop deeper.
   */
  requisites: string[];
}

/**
 * URLs (and hrefs) per generation of the analyzer's records and verdicts. A crawl whose
 * pages link to more distinct URLs than a generation holds moves a record to the young
 * generation at nearly every link: on the small benchmark web (20,000 URLs, links at
 * random) the analysis took 55 to 61 µs a page with 32,768 against 69 to 74 with 16,384
 * (realistic pages: 305 to 317 against 319 to 329), for some 6 MB more on the thread.
 */
const RECENT_URLS = 32_768;

/** Bound of the too-long URLs kept as refused, as routeLinks keeps them. */
const MAX_REFUSED_URL_CHARS = 4096;

/**
 * parse -> canonicalize -> filter for whole pages, in one pass over each: the work a
 * parse worker does (parse-worker.ts), or the crawl's thread while no worker is ready.
 * It remembers recent verdicts (LinkCache) and the URLs it sent lately: most links of a
 * page are its site's navigation, and the store needs to hear of each once.
 */
export class PageAnalyzer {
  private readonly cache: LinkCache;
  /**
   * The URLs this analyzer met lately, and which it handed on. A later page's link to one
   * handed on need not go to the store again: the store gets it with the same or an
   * earlier batch of completions. If that batch is never stored (the crawl dies, a lease
   * expires), the page that had the link is leased again, and then sends every link it
   * has (AnalysisInput.firstTry).
   */
  private readonly known = new KnownUrls(RECENT_URLS);
  /** Pages analyzed: a URL's record says the last page it was on. */
  private pages = 0;

  constructor(
    private readonly rules: LinkRules,
    private readonly followNofollow: boolean,
    private readonly requisites = false,
  ) {
    this.cache = new LinkCache(rules, RECENT_URLS);
  }

  analyze(input: AnalysisInput): PageAnalysis {
    const parsed = parseHtml(input.body, {
      url: input.url,
      contentType: input.contentType,
      requisites: this.requisites && !input.titleOnly,
    });
    const analysis: PageAnalysis = {
      charset: parsed.charset,
      title: parsed.title,
      hasForm: parsed.hasForm,
      noindex: parsed.metaRobots.noindex,
      facts: parsed.facts,
      links: '',
      outlinks: 0,
      accepted: [],
      rejected: [],
      requisites: [],
    };
    if (input.titleOnly) return analysis;
    const depth = input.depth + 1;
    const followAny = !parsed.metaRobots.nofollow;
    this.known.startPage();
    const page = ++this.pages;
    // Each distinct URL of the page, in the order met.
    const distinct: string[] = [];
    const verdict = this.cache.forPage(parsed.base);
    for (const link of parsed.links) {
      const v = verdict(link.href);
      const { canonical, refusal } = v;
      const url = canonical.ok ? canonical.url : canonical.reason === 'too-long' ? canonical.input : null;
      if (url === null) continue;
      const known = this.known.of(url, v.known);
      v.known = known;
      if (known.page !== page) {
        known.page = page;
        distinct.push(url);
      }
      if (known.followedOn === page || !followAny || (link.nofollow && !this.followNofollow)) continue;
      known.followedOn = page;
      const sentLately = known.sent;
      known.sent = true;
      if (sentLately && input.firstTry) continue;
      if (!canonical.ok) {
        const refused = tooLong(url, parsed.base, this.rules);
        analysis.rejected.push({ url: refused.url.slice(0, MAX_REFUSED_URL_CHARS), reason: refused.reason });
      } else if (refusal !== null) analysis.rejected.push({ url, reason: refusal });
      else if (depth > this.rules.maxDepth) analysis.rejected.push({ url, reason: 'depth' });
      else analysis.accepted.push(url);
    }
    analysis.links = distinct.join('\n');
    analysis.outlinks = distinct.length;
    if (parsed.requisites.length > 0) this.addRequisites(parsed.requisites, verdict, analysis);
    return analysis;
  }

  /**
   * The page's requisites through the same verdicts as its links: a requisite is not
   * refused for its extension (.css, .png are what it is), and one the page also links to
   * is fetched as a requisite, not recorded as that link's refusal. Not subject to
   * nofollow either: a browser loads them whatever the page says of its links.
   */
  private addRequisites(
    hrefs: readonly string[],
    verdict: (href: string) => LinkVerdict,
    analysis: PageAnalysis,
  ): void {
    const met = new Set<string>();
    for (const href of hrefs) {
      const { canonical, refusal } = verdict(href);
      if (!canonical.ok || met.has(canonical.url)) continue;
      met.add(canonical.url);
      if (refusal === null || refusal === 'extension') analysis.requisites.push(canonical.url);
      else analysis.rejected.push({ url: canonical.url, reason: refusal });
    }
    if (analysis.requisites.length === 0) return;
    const taken = new Set(analysis.requisites);
    analysis.rejected = analysis.rejected.filter((r) => !taken.has(r.url));
  }
}
