/**
 * The crawl's cookie jar hands the store what changed since its last call: each new or
 * changed cookie once, nothing when nothing changed, and the jar read back from those
 * rows is the jar that wrote them.
 */
import { describe, expect, it } from 'vitest';
import { CrawlCookies, type StoredCookie } from '../../src/fetch/cookie-jar.js';
import { toughCookie } from '../../src/fetch/tough-cookie.js';

/** key -> the cookie's value, for rows as the store gets them (null: gone). */
function values(rows: readonly StoredCookie[]): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const row of rows)
    out[row.key] = row.value === null ? null : (JSON.parse(row.value) as { value: string }).value;
  return out;
}

describe('CrawlCookies.changes()', () => {
  it('hands out a new cookie once, and nothing while nothing changes', () => {
    const jar = new CrawlCookies();
    jar.take('http://a.example.com/', ['sid=1; Path=/']);

    expect(values(jar.changes())).toEqual({ 'a.example.com;/;sid': '1' });
    expect(jar.changes()).toEqual([]);
    jar.take('http://a.example.com/', ['sid=1; Path=/']);
    expect(jar.changes()).toEqual([]);
  });

  it('hands out only the cookies of the domains that changed, each under its own key', () => {
    const jar = new CrawlCookies();
    jar.take('http://a.example.com/', ['sid=1; Path=/']);
    jar.take('http://b.example.com/', ['shared=1; Domain=example.com; Path=/']);
    jar.changes();

    jar.take('http://a.example.com/', ['sid=2; Path=/']);
    jar.take('http://c.example.com/', ['shared=2; Domain=example.com; Path=/']);
    jar.take('http://elsewhere.test/', ['stolen=1; Domain=example.com']);

    expect(values(jar.changes())).toEqual({ 'a.example.com;/;sid': '2', 'example.com;/;shared': '2' });
  });

  it('says which cookies went with their domain when cookies.txt ones are added', () => {
    const jar = new CrawlCookies();
    const imported = toughCookie().Cookie.parse('login=yes; Path=/');
    if (imported === undefined) throw new Error('cookie did not parse');
    imported.domain = 'intranet.test';

    jar.add([imported]);

    expect(values(jar.changes())).toEqual({ 'intranet.test;/;login': 'yes' });
    expect(jar.size).toBe(1);
  });

  it('a jar made from the rows it handed out sends the same cookies and has nothing new to hand out', () => {
    const first = new CrawlCookies();
    first.take('http://a.example.com/', ['sid=1; Path=/']);
    first.take('http://a.example.com/x/', ['deep=1']);
    const rows = first.changes();

    const resumed = new CrawlCookies(rows);

    expect(resumed.header('http://a.example.com/x/page')).toBe(first.header('http://a.example.com/x/page'));
    expect(resumed.header('http://a.example.com/')).toBe('sid=1');
    expect(resumed.changes()).toEqual([]);
    // A change after the resume is the only row handed out.
    resumed.take('http://a.example.com/', ['sid=9; Path=/']);
    expect(values(resumed.changes())).toEqual({ 'a.example.com;/;sid': '9' });
  });

  it('keeps the rows of thousands of hosts to one each, whatever the number of calls', () => {
    const jar = new CrawlCookies();
    const handedOut: StoredCookie[] = [];
    for (let i = 0; i < 3000; i++) {
      jar.take(`http://h${i}.example.com/`, [`sid=${i}; Path=/`]);
      if (i % 32 === 31) handedOut.push(...jar.changes());
    }
    handedOut.push(...jar.changes());

    expect(handedOut).toHaveLength(3000);
    expect(new Set(handedOut.map((r) => r.key)).size).toBe(3000);
    expect(jar.size).toBe(3000);
  });

  it('past its size, drops the cookies of the domain used longest ago, and tells the store', () => {
    const jar = new CrawlCookies([], 3);
    for (const host of ['a', 'b', 'c']) jar.take(`http://${host}.example.com/`, [`sid=${host}; Path=/`]);
    jar.changes();
    // a sends its cookie again: b is now the one used longest ago.
    expect(jar.header('http://a.example.com/page')).toBe('sid=a');

    jar.take('http://d.example.com/', ['sid=d; Path=/']);

    expect(jar.size).toBe(3);
    expect(jar.header('http://b.example.com/')).toBeNull();
    expect(jar.header('http://a.example.com/')).toBe('sid=a');
    expect(values(jar.changes())).toEqual({ 'b.example.com;/;sid': null, 'd.example.com;/;sid': 'd' });
  });

  it('keeps the cookies a response just set, even when they alone pass the size', () => {
    const jar = new CrawlCookies([], 2);
    jar.take('http://old.example.com/', ['x=1']);

    jar.take('http://big.example.com/', ['a=1', 'b=2', 'c=3']);

    expect(jar.header('http://big.example.com/')).toBe('a=1; b=2; c=3');
    expect(jar.header('http://old.example.com/')).toBeNull();
  });
});

describe('CrawlCookies shared with a browser', () => {
  it("gives a host's cookies on every path, its parent domain's, and no other host's", () => {
    const jar = new CrawlCookies();
    jar.take('http://a.example.com/', ['sid=1; Path=/', 'deep=2; Path=/api', 'wide=3; Domain=example.com']);
    jar.take('http://b.example.com/', ['other=4']);
    const names = (url: string) =>
      jar
        .cookiesOfHost(url)
        .map((c) => c.key)
        .sort();
    expect(names('http://a.example.com/page')).toEqual(['deep', 'sid', 'wide']);
    expect(names('http://c.example.com/')).toEqual(['wide']);
  });

  it('takes back only what the browser changed or added: a cookie it holds as the jar does is no change', () => {
    const jar = new CrawlCookies();
    jar.take('http://a.example.com/', ['sid=1; Path=/']);
    jar.changes();
    const { Cookie } = toughCookie();
    const same = new Cookie({ key: 'sid', value: '1', domain: 'a.example.com', hostOnly: true, path: '/' });
    jar.merge([same]);
    expect(jar.changes()).toEqual([]);
    const changed = new Cookie({
      key: 'sid',
      value: '2',
      domain: 'a.example.com',
      hostOnly: true,
      path: '/',
    });
    const added = new Cookie({ key: 'js', value: 'x', domain: 'a.example.com', hostOnly: true, path: '/' });
    jar.merge([changed, added]);
    expect(values(jar.changes())).toEqual({ 'a.example.com;/;sid': '2', 'a.example.com;/;js': 'x' });
    expect(jar.header('http://a.example.com/')).toBe('sid=2; js=x');
  });
});
