import { describe, expect, it } from 'vitest';
import { type HtmlLink, type ParsedHtml, parseHtml } from '../../src/parse/html.js';

const PAGE_URL = 'https://example.com/dir/page.html';

function parse(html: string, contentType: string | null = 'text/html; charset=utf-8'): ParsedHtml {
  return parseHtml(new TextEncoder().encode(html), { url: PAGE_URL, contentType });
}

const hrefs = (html: string): string[] => parse(html).links.map((link) => link.href);
const link = (href: string, source: HtmlLink['source'], nofollow = false): HtmlLink => ({
  href,
  source,
  nofollow,
});

describe('links', () => {
  it('comes from every link source, in document order', () => {
    const page = parse(`<html><head>
      <link rel="stylesheet" href="/style.css">
      <link rel="alternate" hreflang="de" href="/de/">
      <link rel="icon" href="/favicon.ico">
      <meta http-equiv="refresh" content="5; url=/next">
      </head><body>
      <a href="/a">a</a>
      <map><area href="/area" alt=""></map>
      <iframe src="/iframe"></iframe>
      <frameset><frame src="/frame"></frameset>
      </body></html>`);
    expect(page.links).toEqual([
      link('/de/', 'link'),
      link('/next', 'meta-refresh'),
      link('/a', 'a'),
      link('/area', 'area'),
      link('/iframe', 'iframe'),
      link('/frame', 'frame'),
    ]);
  });

  it('takes a <link> only when its rel names a page, not a resource or a rev="made" address', () => {
    const page = parse(`<head>
      <link rev="made" href="mailto:webmaster@example.com">
      <link href="/no-rel">
      <link rel="stylesheet" href="/style.css">
      <link rel="alternate stylesheet" href="/high-contrast.css">
      <link rel="shortcut icon" href="/favicon.ico">
      <link rel="preload" href="/font.woff2">
      <link rel="Next" href="/page/2">
      <link rel="prev" href="/page/0">
      <link rel="alternate" type="application/rss+xml" href="/feed.xml">
      <link rel="up  contents" href="/toc">
      <link rel="canonical" href="/page/1">
    </head>`);
    expect(page.links.map((l) => l.href)).toEqual(['/page/2', '/page/0', '/feed.xml', '/toc', '/page/1']);
  });

  it('reports hrefs raw: entity-decoded and trimmed, but not resolved', () => {
    expect(
      hrefs('<a href="  ../up?a=1&amp;b=2&#x26;c=3 \n">x</a><a href=mailto:me@example.com>m</a>'),
    ).toEqual(['../up?a=1&b=2&c=3', 'mailto:me@example.com']);
  });

  it('keeps duplicates and skips empty or missing hrefs', () => {
    expect(
      hrefs('<a href="/x">1</a><a href="/x">2</a><a href="">3</a><a href="   ">4</a><a name="top">5</a>'),
    ).toEqual(['/x', '/x']);
    expect(hrefs('<iframe srcdoc="<p>hi</p>"></iframe><frame>')).toEqual([]);
  });

  it('reads upper-case tags and attributes', () => {
    expect(parse('<A HREF="/upper" REL="NOFOLLOW">x</A><IFRAME SRC="/if"></IFRAME>').links).toEqual([
      link('/upper', 'a', true),
      link('/if', 'iframe'),
    ]);
  });

  it('ignores links inside comments, scripts and styles', () => {
    expect(
      hrefs(`<!-- <a href="/commented">x</a> -->
        <script>document.write('<a href="/scripted">x</a>')</script>
        <style>a[href="/styled"] { color: red }</style>
        <a href="/real">real</a>`),
    ).toEqual(['/real']);
  });

  it('finds links inside svg too', () => {
    expect(hrefs('<svg><a href="/in-svg"><text>x</text></a></svg>')).toEqual(['/in-svg']);
  });
});

describe('nofollow', () => {
  it('is set when rel holds the nofollow token, in any case and spacing', () => {
    const page = parse(`
      <a href="/1" rel="nofollow">1</a>
      <a href="/2" rel="NoFollow noopener">2</a>
      <a href="/3" rel="external\tnofollow\n">3</a>
      <area href="/4" rel="nofollow">
      <a href="/5" rel="nofollowing">5</a>
      <a href="/6" rel="no-follow nofollowx xnofollow">6</a>
      <a href="/7">7</a>`);
    expect(page.links.map((l) => [l.href, l.nofollow])).toEqual([
      ['/1', true],
      ['/2', true],
      ['/3', true],
      ['/4', true],
      ['/5', false],
      ['/6', false],
      ['/7', false],
    ]);
  });

  it('is not forced onto links by meta robots: the page-level flag is reported separately', () => {
    const page = parse('<meta name="robots" content="nofollow"><a href="/x">x</a>');
    expect(page.metaRobots).toEqual({ noindex: false, nofollow: true });
    expect(page.links).toEqual([link('/x', 'a')]);
  });
});

describe('meta robots', () => {
  const robots = (html: string) => parse(html).metaRobots;

  it('defaults to allowing everything', () => {
    expect(robots('<meta name="description" content="noindex, nofollow"><p>')).toEqual({
      noindex: false,
      nofollow: false,
    });
  });

  it('reads noindex and nofollow, case-insensitively', () => {
    expect(robots('<meta name="robots" content="noindex">')).toEqual({ noindex: true, nofollow: false });
    expect(robots('<META NAME="Robots" CONTENT="NOINDEX,NOFOLLOW">')).toEqual({
      noindex: true,
      nofollow: true,
    });
    expect(robots('<meta name="robots" content=" index , nofollow ">')).toEqual({
      noindex: false,
      nofollow: true,
    });
  });

  it('treats "none" as noindex and nofollow', () => {
    expect(robots('<meta name="robots" content="None">')).toEqual({ noindex: true, nofollow: true });
  });

  it('adds up several robots metas', () => {
    expect(robots('<meta name="robots" content="noindex"><meta name="robots" content="nofollow">')).toEqual({
      noindex: true,
      nofollow: true,
    });
  });

  it('ignores unrelated directives and other robot names', () => {
    expect(
      robots('<meta name="robots" content="noarchive, nosnippet"><meta name="googlebot" content="none">'),
    ).toEqual({
      noindex: false,
      nofollow: false,
    });
  });
});

describe('base href', () => {
  const baseOf = (html: string) => parse(html).base;

  it('is the page URL when there is no <base>', () => {
    expect(baseOf('<a href="x">x</a>')).toBe(PAGE_URL);
  });

  it('resolves an absolute or relative base against the page URL', () => {
    expect(baseOf('<base href="https://cdn.example.org/root/">')).toBe('https://cdn.example.org/root/');
    expect(baseOf('<base href="../other/">')).toBe('https://example.com/other/');
    expect(baseOf('<base href=" /abs/path ">')).toBe('https://example.com/abs/path');
  });

  it('uses only the first <base href>', () => {
    expect(baseOf('<base href="/first/"><base href="/second/">')).toBe('https://example.com/first/');
    // A <base> without href (e.g. only target=) does not count.
    expect(baseOf('<base target="_blank"><base href="/with-href/">')).toBe('https://example.com/with-href/');
  });

  it('ignores an invalid base, and a valid one after it', () => {
    expect(baseOf('<base href="http://[bad-host/">')).toBe(PAGE_URL);
    expect(baseOf('<base href="http://[bad-host/"><base href="/second/">')).toBe(PAGE_URL);
  });

  it('does not change the hrefs, which stay raw', () => {
    const page = parse('<base href="/b/"><a href="rel">x</a>');
    expect(page.links).toEqual([link('rel', 'a')]);
  });
});

describe('canonical', () => {
  it('is the raw href of the first <link rel=canonical>, which is also a link', () => {
    const page = parse(
      '<link rel="Canonical" href=" /canon?a=1&amp;b=2 "><link rel="canonical" href="/second"><a rel="canonical" href="/a">',
    );
    expect(page.canonical).toBe('/canon?a=1&b=2');
    expect(page.links.map((l) => l.href)).toEqual(['/canon?a=1&b=2', '/second', '/a']);
  });

  it('is null without one, or when only <a rel=canonical> exists', () => {
    expect(parse('<link rel="alternate" href="/alt"><a rel="canonical" href="/a">').canonical).toBeNull();
  });

  it('recognizes canonical among other rel tokens and skips an empty href', () => {
    expect(parse('<link rel="canonical" href=""><link rel="alternate canonical" href="/c">').canonical).toBe(
      '/c',
    );
  });
});

describe('title', () => {
  const titleOf = (html: string) => parse(html).title;

  it('collapses whitespace and decodes entities', () => {
    expect(titleOf('<title>\n  Fish &amp; Chips\t\t— the   best  \r\n</title>')).toBe(
      'Fish & Chips — the best',
    );
  });

  it('is null when missing or blank', () => {
    expect(titleOf('<p>no title</p>')).toBeNull();
    expect(titleOf('<title>  \n </title>')).toBeNull();
  });

  it('takes the first title only, even when it is blank', () => {
    expect(titleOf('<title>One</title><title>Two</title>')).toBe('One');
    expect(titleOf('<title></title><title>Two</title>')).toBeNull();
  });

  it('ignores titles inside svg and math', () => {
    expect(titleOf('<svg><title>Icon</title></svg><math><title>M</title></math><title>Page</title>')).toBe(
      'Page',
    );
    expect(titleOf('<svg><title>Icon</title></svg>')).toBeNull();
  });

  it('treats markup inside title as text, as browsers do', () => {
    expect(titleOf('<title>a <b>bold</b> move</title>')).toBe('a <b>bold</b> move');
  });

  it('finds a title in the body and an unclosed one at end of input', () => {
    expect(titleOf('<body><p>x</p><title>Late</title>')).toBe('Late');
    expect(titleOf('<title>Never closed')).toBe('Never closed');
  });
});

describe('forms', () => {
  it('reports whether the page has a form', () => {
    expect(parse('<form action="/search"><input name="q"></form>').hasForm).toBe(true);
    expect(parse('<FORM>').hasForm).toBe(true);
    expect(parse('<p>formless <input name="q"></p>').hasForm).toBe(false);
  });
});

describe('the page facts modules read', () => {
  it('hold the title, language, absolute canonical and every named meta tag, in order', () => {
    const { facts } = parse(`<html LANG=" fr "><head><title> Un  site </title>
      <base href="/base/"><meta charset="utf-8">
      <meta name="Description" content="Des pages">
      <meta property="og:title" content="OG">
      <meta http-equiv="Content-Language" content="fr">
      <meta name="robots" content="noindex">
      <meta name="empty"><link rel="canonical" href="c.html"></head><html lang="de"></html>`);
    expect(facts).toEqual({
      title: 'Un site',
      language: 'fr',
      canonical: 'https://example.com/base/c.html',
      meta: [
        { name: 'description', content: 'Des pages' },
        { name: 'og:title', content: 'OG' },
        { name: 'content-language', content: 'fr' },
        { name: 'robots', content: 'noindex' },
      ],
      forms: [],
    });
  });

  it('hold each form: its action resolved, its method, its field names once each', () => {
    const { facts } = parse(`<base href="https://example.com/app/">
      <form action="search" method=" post "><input name="q"><select name="lang"></select>
        <input name="q"><input type="submit"><button name="go"></button></form>
      <input name="outside">
      <form><textarea name="note"></textarea></form>`);
    expect(facts.forms).toEqual([
      { action: 'https://example.com/app/search', method: 'POST', inputs: ['q', 'lang', 'go'] },
      { action: 'https://example.com/app/', method: 'GET', inputs: ['note'] },
    ]);
  });

  it('stay small on a hostile page', () => {
    const { facts } = parse(
      `${'<meta name="x" content="y">'.repeat(1000)}<form>${'<input name="f">'.repeat(10)}${Array.from(
        { length: 1000 },
        (_, i) => `<input name="f${i}">`,
      ).join('')}</form>${'<form></form>'.repeat(1000)}<meta name="long" content="${'z'.repeat(100_000)}">`,
    );
    expect(facts.meta.length).toBeLessThanOrEqual(64);
    expect(facts.forms.length).toBeLessThanOrEqual(32);
    expect(facts.forms[0]?.inputs.length).toBeLessThanOrEqual(64);
    expect(JSON.stringify(facts).length).toBeLessThan(20_000);
  });
});

describe('meta refresh', () => {
  const refresh = (content: string): string[] =>
    parse(`<meta http-equiv="refresh" content="${content}">`)
      .links.filter((l) => l.source === 'meta-refresh')
      .map((l) => l.href);

  it('reads the URL after url=, in any case and spacing', () => {
    expect(refresh('5; url=/next')).toEqual(['/next']);
    expect(refresh('0;URL=/upper')).toEqual(['/upper']);
    expect(refresh(' 1 ;  Url = /spaced ')).toEqual(['/spaced']);
  });

  it('strips quotes around the URL and cuts at the closing quote', () => {
    expect(refresh("0; url='/single'")).toEqual(['/single']);
    expect(refresh('0; url=&quot;/double&quot; trailing')).toEqual(['/double']);
    expect(refresh("0; url='/unclosed")).toEqual(['/unclosed']);
  });

  it('accepts a URL without url=, after ; or , or a space', () => {
    expect(refresh('0;/bare')).toEqual(['/bare']);
    expect(refresh('3, /comma')).toEqual(['/comma']);
    expect(refresh('3 https://example.org/x')).toEqual(['https://example.org/x']);
    expect(refresh("0; '/quoted'")).toEqual(['/quoted']);
  });

  it('keeps a partial url prefix as part of the URL, as the spec does', () => {
    expect(refresh('0; urlish/page')).toEqual(['urlish/page']);
  });

  it('accepts a fractional delay', () => {
    expect(refresh('0.5; url=/frac')).toEqual(['/frac']);
    expect(refresh('.5; url=/dot')).toEqual(['/dot']);
  });

  it('yields no link without a URL or with malformed content', () => {
    expect(refresh('5')).toEqual([]);
    expect(refresh('5;  ')).toEqual([]);
    expect(refresh('0; url=')).toEqual([]);
    expect(refresh('0; url=""')).toEqual([]);
    expect(refresh('')).toEqual([]);
    expect(refresh('soon; url=/x')).toEqual([]);
    expect(refresh('5x; url=/x')).toEqual([]);
  });

  it('needs http-equiv="refresh"', () => {
    expect(
      parse('<meta name="refresh" content="0; url=/x"><meta http-equiv=" REFRESH " content="0;/y">').links,
    ).toEqual([link('/y', 'meta-refresh')]);
  });
});

describe('charset', () => {
  const CP1251 = (text: string) =>
    Buffer.from(
      Array.from(
        text,
        (ch) => 0xc0 + 'АБВГДЕЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдежзийклмнопрстуфхцчшщъыьэюя'.indexOf(ch),
      ),
    );

  it('decodes the page before parsing, and reports the charset', () => {
    const body = Buffer.concat([
      Buffer.from('<meta charset="windows-1251"><title>'),
      CP1251('Привет'),
      Buffer.from('</title><a href="/'),
      CP1251('мир'),
      Buffer.from('">x</a>'),
    ]);
    const page = parseHtml(body, { url: PAGE_URL, contentType: 'text/html' });
    expect(page.charset).toBe('windows-1251');
    expect(page.title).toBe('Привет');
    expect(page.links).toEqual([link('/мир', 'a')]);
  });

  it('lets the header win over the meta declaration', () => {
    const page = parse('<meta charset="windows-1251"><title>é</title>', 'text/html; charset=utf-8');
    expect(page.charset).toBe('utf-8');
    expect(page.title).toBe('é');
  });
});

describe('malformed HTML', () => {
  it('copes with unclosed and misnested tags', () => {
    const page = parse(
      '<html><body><div><p><a href="/1">one<a href="/2">two</div></i></b><a href="/3"><table><tr><td><a href="/4">',
    );
    expect(page.links.map((l) => l.href)).toEqual(['/1', '/2', '/3', '/4']);
  });

  it('copes with NUL bytes in text and attributes', () => {
    const page = parse('<title>a\0b</title><a href="/x\0y">x\0</a><a\0 href="/z">z</a>');
    expect(page.links.map((l) => l.href)).toContain('/x\0y');
    expect(page.title).toBe('a\0b');
  });

  it('copes with garbage bytes', () => {
    // A fixed pseudo-random sequence, so a failure can be reproduced.
    let seed = 42;
    const garbage = new Uint8Array(200_000);
    for (let i = 0; i < garbage.length; i++) {
      seed = (seed * 1103515245 + 12345) >>> 0;
      garbage[i] = seed >>> 24;
    }
    const prefix = new TextEncoder().encode('<a href="/before">x</a>');
    const body = new Uint8Array(prefix.length + garbage.length);
    body.set(prefix);
    body.set(garbage, prefix.length);
    const page = parseHtml(body, { url: PAGE_URL, contentType: null });
    expect(page.links[0]).toEqual(link('/before', 'a'));
  });

  it('copes with a 5 MB single line', () => {
    const chunk = '<span class="c">word</span><a href="/p">p</a> ';
    const line = chunk.repeat(Math.ceil((5 * 1024 * 1024) / chunk.length));
    const page = parse(`<title>Big</title>${line}`);
    expect(page.title).toBe('Big');
    expect(page.links.length).toBe(Math.ceil((5 * 1024 * 1024) / chunk.length));
  });

  it('copes with a 5 MB attribute value and a 5 MB unclosed title', () => {
    const huge = 'x'.repeat(5 * 1024 * 1024);
    expect(parse(`<a href="/${huge}">x</a><a href="/after">y</a>`).links.map((l) => l.href.length)).toEqual([
      huge.length + 1,
      6,
    ]);
    // An unclosed title runs to the end of the page; what is kept of it is bounded.
    const title = parse(`<title>${huge}`).title ?? '';
    expect(title.startsWith('xxxx')).toBe(true);
    expect(title.length).toBeLessThanOrEqual(4096);
  });

  it('keeps links before an unterminated comment', () => {
    expect(hrefs('<a href="/before">x</a><!-- never closed <a href="/inside">y</a>')).toEqual(['/before']);
  });

  it('keeps links before an unterminated attribute value', () => {
    // No closing quote anywhere after it: the value swallows the rest of the page.
    expect(hrefs('<a href="/before">x</a><a href="/broken>y</a><a href=/swallowed>z</a>')).toEqual([
      '/before',
    ]);
    expect(hrefs('<a href="/ok">x</a><a href=/cut')).toEqual(['/ok']);
  });

  it('copes with an empty body and with text only', () => {
    expect(parse('')).toEqual({
      charset: 'utf-8',
      text: '',
      base: PAGE_URL,
      title: null,
      links: [],
      metaRobots: { noindex: false, nofollow: false },
      canonical: null,
      hasForm: false,
      facts: { title: null, language: null, canonical: null, meta: [], forms: [] },
      requisites: [],
    });
    expect(parse('just < text > & stuff <').links).toEqual([]);
  });

  it('does not throw on a page URL that is not a URL, when a base has to be resolved', () => {
    const page = parseHtml(new TextEncoder().encode('<base href="rel/"><a href="/x">x</a>'), {
      url: 'not a url',
      contentType: null,
    });
    expect(page.base).toBe('not a url');
    expect(page.links).toEqual([link('/x', 'a')]);
  });
});
