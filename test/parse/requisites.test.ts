import { describe, expect, it } from 'vitest';
import { cssUrls } from '../../src/parse/css-urls.js';
import { parseHtml } from '../../src/parse/html.js';
import { srcsetUrls } from '../../src/parse/requisite-tags.js';

const requisitesOf = (html: string, requisites = true) =>
  parseHtml(new TextEncoder().encode(html), { url: 'http://a.test/', contentType: 'text/html', requisites })
    .requisites;

describe('cssUrls', () => {
  it('reads url() in its three spellings and @import in both, skipping comments, data: and fragments', () => {
    const css = `@import "a.css"; @import url('b.css') screen;
      /* url(c.png) */ x { background: url(d.png), url( "e f.png" ) } y { mask: url(#m); src: url(data:font/woff2;base64,AA) }`;
    expect(cssUrls(css)).toEqual(['a.css', 'b.css', 'd.png', 'e f.png']);
  });

  it('undoes CSS escapes', () => {
    expect(cssUrls('x { background: url(a\\(1\\).png) } y { background: url("\\2f img.png") }')).toEqual([
      'a(1).png',
      '/img.png',
    ]);
  });
});

describe('srcsetUrls', () => {
  it('takes each candidate URL, with or without descriptors, commas inside URLs kept', () => {
    expect(srcsetUrls('a.jpg 1x, b.jpg 2x,c.jpg')).toEqual(['a.jpg', 'b.jpg', 'c.jpg']);
    expect(srcsetUrls('/i.jpg?w=1,2 480w, x.jpg 800w')).toEqual(['/i.jpg?w=1,2', 'x.jpg']);
    expect(srcsetUrls(' , ')).toEqual([]);
  });
});

describe('parseHtml requisites', () => {
  it('lists what a browser loads to show the page, in document order', () => {
    const html = `<link rel="stylesheet" href="s.css"><link rel="next" href="/p2"><link rel="shortcut icon" href="/i.ico">
      <style>@import "i.css"; b { background: url(bg.png) }</style><script src="app.js"></script><script>var a = "<img src=no.png>"</script>
      <img src="a.png" srcset="a2.png 2x"><picture><source srcset="p.webp"><img src="p.png"></picture>
      <video poster="v.png"><source src="v.mp4"><track src="t.vtt"></video><input type="image" src="go.png"><input src="no2.png">
      <img src="data:image/png;base64,AA"><object data="o.svg"></object><embed src="e.swf"><a href="/x">x</a>`;
    expect(requisitesOf(html)).toEqual([
      's.css',
      '/i.ico',
      'i.css',
      'bg.png',
      'app.js',
      'a.png',
      'a2.png',
      'p.webp',
      'p.png',
      'v.png',
      'v.mp4',
      't.vtt',
      'go.png',
      'o.svg',
      'e.swf',
    ]);
  });

  it('lists none unless asked, and leaves the links as they were', () => {
    const html = '<link rel="stylesheet" href="s.css"><img src="a.png"><a href="/x">x</a>';
    expect(requisitesOf(html, false)).toEqual([]);
    const withThem = parseHtml(new TextEncoder().encode(html), {
      url: 'http://a.test/',
      contentType: 'text/html',
      requisites: true,
    });
    expect(withThem.links.map((l) => l.href)).toEqual(['/x']);
  });
});
