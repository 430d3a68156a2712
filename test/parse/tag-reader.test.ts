import { describe, expect, it } from 'vitest';
import { type Attributes, type TagHandler, TagReader } from '../../src/parse/tag-reader.js';

type Event = ['open', string, Attributes, boolean] | ['close', string] | ['text', string];

/** Reads `html` and returns what the handler was told, in order. */
function read(
  html: string,
  names: string[],
  options: { attributesOf?: string[]; textIn?: string } = {},
): Event[] {
  const events: Event[] = [];
  let inText = false;
  const handler: TagHandler = {
    wantsAttributes: (name) => options.attributesOf?.includes(name) ?? true,
    onopentag(name, attribs, foreign) {
      events.push(['open', name, { ...attribs }, foreign]);
      if (name === options.textIn) inText = true;
    },
    onclosetag(name) {
      events.push(['close', name]);
      if (name === options.textIn) inText = false;
    },
    get readingText() {
      return inText;
    },
    ontext(text) {
      events.push(['text', text]);
    },
  };
  new TagReader(handler, new Set(names)).read(html);
  return events;
}

describe('TagReader', () => {
  it('reports only the tags of its list, whatever their case', () => {
    expect(read('<div><A HREF="/x">x</A><span></span><Link rel=next href=/n></div>', ['a', 'link'])).toEqual([
      ['open', 'a', { href: '/x' }, false],
      ['close', 'a'],
      ['open', 'link', { rel: 'next', href: '/n' }, false],
    ]);
  });

  it('reads attributes as the HTML parser does: lower-case names, the first of a name, entities decoded', () => {
    const [open] = read('<a HREF="/x?a=1&amp;b=2" href="/second" Rel=\'no&#102;ollow\' download>', ['a']);
    expect(open).toEqual(['open', 'a', { href: '/x?a=1&b=2', rel: 'nofollow', download: '' }, false]);
  });

  it('reads no attributes of a tag the handler does not want them of', () => {
    expect(read('<a href="/x"><form action="/f">', ['a', 'form'], { attributesOf: ['form'] })).toEqual([
      ['open', 'a', {}, false],
      ['open', 'form', { action: '/f' }, false],
    ]);
  });

  it('gives text only while the handler asks for it, entities decoded', () => {
    const events = read('<p>before</p><title>A &amp; B</title><p>after</p>', ['title'], { textIn: 'title' });
    expect(events.filter((e) => e[0] === 'text').map((e) => e[1])).toEqual(['A ', '&', ' B']);
  });

  it('says which tags are inside <svg> or <math>, and ends that at their close', () => {
    const events = read('<svg><title>icon</title></svg><math><title>m</title></math><title>page</title>', [
      'title',
    ]);
    expect(events.filter((e) => e[0] === 'open')).toEqual([
      ['open', 'title', {}, true],
      ['open', 'title', {}, true],
      ['open', 'title', {}, false],
    ]);
  });

  it('takes a self-closed <svg/> as closed, and a self-closed tag in svg as closed at once', () => {
    expect(read('<svg/><title>t</title>', ['title'])[0]).toEqual(['open', 'title', {}, false]);
    expect(read('<svg><a href="/i"/></svg><a href="/o">', ['a'])).toEqual([
      ['open', 'a', { href: '/i' }, true],
      ['close', 'a'],
      ['open', 'a', { href: '/o' }, false],
    ]);
  });

  it('ignores a form inside an open form, and a </form> with none open', () => {
    const events = read('</form><form action="/a"><form action="/b"></form></form><form action="/c">', [
      'form',
    ]);
    expect(events).toEqual([
      ['open', 'form', { action: '/a' }, false],
      ['close', 'form'],
      ['open', 'form', { action: '/c' }, false],
    ]);
  });

  it('reads no tags inside script, style or textarea, as the tokenizer does not', () => {
    const html =
      '<script>x = "<a href=/s>"</script><style>a{}</style><textarea><a href=/t></textarea><a href=/ok>';
    expect(read(html, ['a'])).toEqual([['open', 'a', { href: '/ok' }, false]]);
  });
});
