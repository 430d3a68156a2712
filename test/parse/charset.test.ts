import { describe, expect, it } from 'vitest';
import { decodeBody, sniffCharset } from '../../src/parse/charset.js';

const utf8 = (text: string): Uint8Array => new TextEncoder().encode(text);
const bytes = (...parts: (string | number[])[]): Uint8Array =>
  Buffer.concat(
    parts.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : Buffer.from(part))),
  );

// Hand-written byte sequences, so the tests do not depend on an encoder under test.
const PRIVET_1251 = [0xcf, 0xf0, 0xe8, 0xe2, 0xe5, 0xf2]; // "Привет"
const NIHON_SJIS = [0x93, 0xfa, 0x96, 0x7b]; // "日本"
const HANGUK_EUCKR = [0xc7, 0xd1, 0xb1, 0xb9]; // "한국"
const ZHONGWEN_GB = [0xd6, 0xd0, 0xce, 0xc4]; // "中文"
const CAFE_1252 = [0x63, 0x61, 0x66, 0xe9]; // "café"
const UTF8_BOM = [0xef, 0xbb, 0xbf];

describe('charset from the Content-Type header', () => {
  it('decodes legacy encodings named by the header', () => {
    expect(decodeBody(bytes(PRIVET_1251), 'text/html; charset=windows-1251')).toEqual({
      text: 'Привет',
      charset: 'windows-1251',
    });
    expect(decodeBody(bytes(NIHON_SJIS), 'text/html; charset=Shift_JIS').text).toBe('日本');
    expect(decodeBody(bytes(HANGUK_EUCKR), 'text/html; charset=euc-kr').text).toBe('한국');
    expect(decodeBody(bytes(ZHONGWEN_GB), 'text/html; charset=gb18030').text).toBe('中文');
  });

  it('accepts quoted values, any case, spaces and other parameters', () => {
    expect(sniffCharset(bytes(), 'text/html; charset="Shift_JIS"')).toEqual({
      charset: 'shift_jis',
      source: 'header',
      bomLength: 0,
    });
    expect(sniffCharset(bytes(), 'TEXT/HTML;CHARSET=EUC-KR').charset).toBe('euc-kr');
    expect(sniffCharset(bytes(), 'text/html ; format=flowed ;  charset = koi8-r ').charset).toBe('koi8-r');
    expect(sniffCharset(bytes(), "text/html; charset='windows-1251'").charset).toBe('windows-1251');
  });

  it('normalizes labels through the WHATWG table', () => {
    const charsetFor = (label: string) => sniffCharset(bytes(), `text/html; charset=${label}`).charset;
    expect(charsetFor('latin1')).toBe('windows-1252');
    expect(charsetFor('ISO-8859-1')).toBe('windows-1252');
    expect(charsetFor('us-ascii')).toBe('windows-1252');
    expect(charsetFor('utf8')).toBe('utf-8');
    expect(charsetFor('sjis')).toBe('shift_jis');
    expect(charsetFor('gb2312')).toBe('gbk');
    expect(decodeBody(bytes(CAFE_1252), 'text/html; charset=iso-8859-1').text).toBe('café');
  });

  it('falls through an unknown or unsupported label instead of throwing', () => {
    const page = bytes('<meta charset="windows-1251">', PRIVET_1251);
    expect(sniffCharset(page, 'text/html; charset=no-such-charset')).toMatchObject({
      charset: 'windows-1251',
      source: 'meta',
    });
    expect(sniffCharset(bytes('hello'), 'text/html; charset=x-user-defined').source).toBe('default');
    expect(sniffCharset(bytes('hello'), 'text/html; charset=').source).toBe('default');
    expect(sniffCharset(bytes('hello'), 'text/html; charset=""').source).toBe('default');
  });

  it('ignores a header without a charset parameter', () => {
    expect(sniffCharset(bytes('<p>hi'), 'text/html')).toEqual({
      charset: 'utf-8',
      source: 'default',
      bomLength: 0,
    });
    expect(sniffCharset(bytes('<p>hi'), 'text/html; boundary=charset')).toMatchObject({ source: 'default' });
  });
});

describe('charset from a byte order mark', () => {
  it('strips a UTF-8 BOM', () => {
    const body = bytes(UTF8_BOM, Array.from(utf8('<p>ünïcode')));
    expect(sniffCharset(body, null)).toEqual({ charset: 'utf-8', source: 'bom', bomLength: 3 });
    expect(decodeBody(body, null).text).toBe('<p>ünïcode');
  });

  it('decodes UTF-16 in both byte orders', () => {
    const le = bytes([0xff, 0xfe], Array.from(Buffer.from('<p>日本', 'utf16le')));
    expect(sniffCharset(le, null)).toEqual({ charset: 'utf-16le', source: 'bom', bomLength: 2 });
    expect(decodeBody(le, null).text).toBe('<p>日本');

    const be = bytes([0xfe, 0xff], Array.from(Buffer.from('<p>日本', 'utf16le').swap16()));
    expect(sniffCharset(be, 'text/html')).toEqual({ charset: 'utf-16be', source: 'bom', bomLength: 2 });
    expect(decodeBody(be, 'text/html').text).toBe('<p>日本');
  });
});

describe('charset from a <meta> in the first 1024 bytes', () => {
  it('reads <meta charset>', () => {
    const page = bytes('<!doctype html><html><head><META CharSet=WINDOWS-1251></head><p>', PRIVET_1251);
    expect(sniffCharset(page, null)).toEqual({ charset: 'windows-1251', source: 'meta', bomLength: 0 });
    expect(decodeBody(page, null).text).toBe(
      '<!doctype html><html><head><META CharSet=WINDOWS-1251></head><p>Привет',
    );
  });

  it('reads <meta http-equiv="Content-Type" content="...; charset=...">', () => {
    const page = bytes('<meta http-equiv="Content-Type" content="text/html; charset=Shift_JIS">', NIHON_SJIS);
    expect(sniffCharset(page, null)).toMatchObject({ charset: 'shift_jis', source: 'meta' });
    expect(decodeBody(page, null).text.endsWith('日本')).toBe(true);

    const reversed = bytes('<meta content=\'text/html;charset="euc-kr"\' http-equiv=content-type>');
    expect(sniffCharset(reversed, null).charset).toBe('euc-kr');
  });

  it('needs http-equiv=content-type for a content= declaration', () => {
    const page = bytes('<meta name="description" content="charset=windows-1251">');
    expect(sniffCharset(page, null).source).toBe('default');
  });

  it('does not look beyond the first 1024 bytes', () => {
    const page = bytes(`<!-- ${'x'.repeat(1100)} -->`, '<meta charset="windows-1251">');
    expect(sniffCharset(page, null)).toMatchObject({ charset: 'utf-8', source: 'default' });
  });

  it('skips declarations inside comments and other tags', () => {
    const commented = bytes('<!-- <meta charset="windows-1251"> --><meta charset="koi8-r">');
    expect(sniffCharset(commented, null).charset).toBe('koi8-r');
    const inAttribute = bytes('<a title="<meta charset=windows-1251>">x</a><meta charset="euc-kr">');
    expect(sniffCharset(inAttribute, null).charset).toBe('euc-kr');
  });

  it('skips an unknown label and uses the next declaration', () => {
    const page = bytes('<meta charset="klingon"><meta charset="windows-1251">');
    expect(sniffCharset(page, null)).toMatchObject({ charset: 'windows-1251', source: 'meta' });
  });

  it('applies the HTML spec fix-ups: UTF-16 means UTF-8, x-user-defined means windows-1252', () => {
    expect(sniffCharset(bytes('<meta charset="utf-16le">'), null).charset).toBe('utf-8');
    expect(sniffCharset(bytes('<meta charset="x-user-defined">'), null).charset).toBe('windows-1252');
  });

  it('survives a declaration cut off by the end of the bytes', () => {
    expect(sniffCharset(bytes('<meta charset="windows-12'), null).source).toBe('default');
    expect(
      sniffCharset(bytes('<meta http-equiv=content-type content="text/html; charset='), null).source,
    ).toBe('default');
    expect(sniffCharset(bytes('<!-- <meta charset=koi8-r>'), null).source).toBe('default');
  });
});

describe('precedence', () => {
  it('header beats BOM: the header is decoded with, and the BOM is still stripped', () => {
    const body = bytes(UTF8_BOM, CAFE_1252);
    expect(sniffCharset(body, 'text/html; charset=windows-1252')).toEqual({
      charset: 'windows-1252',
      source: 'header',
      bomLength: 3,
    });
    expect(decodeBody(body, 'text/html; charset=windows-1252').text).toBe('café');
  });

  it('BOM beats meta', () => {
    const body = bytes(UTF8_BOM, Array.from(utf8('<meta charset="windows-1251">Привет')));
    expect(sniffCharset(body, null)).toMatchObject({ charset: 'utf-8', source: 'bom' });
    expect(decodeBody(body, null).text).toBe('<meta charset="windows-1251">Привет');
  });

  it('header beats meta', () => {
    const body = bytes('<meta charset="windows-1251">', PRIVET_1251);
    expect(sniffCharset(body, 'text/html; charset=koi8-r')).toMatchObject({
      charset: 'koi8-r',
      source: 'header',
    });
  });
});

describe('default and bad bytes', () => {
  it('defaults to UTF-8', () => {
    expect(decodeBody(utf8('<p>naïve'), null)).toEqual({ text: '<p>naïve', charset: 'utf-8' });
    expect(decodeBody(new Uint8Array(0), null)).toEqual({ text: '', charset: 'utf-8' });
  });

  it('turns invalid UTF-8 into replacement characters', () => {
    expect(decodeBody(bytes('a', [0xff, 0xc3], 'b', [0xe2, 0x82]), null).text).toBe('a\uFFFD\uFFFDb\uFFFD');
  });

  it('survives a wrong header: windows-1251 bytes labelled UTF-8', () => {
    const { text, charset } = decodeBody(bytes('<p>', PRIVET_1251), 'text/html; charset=utf-8');
    expect(charset).toBe('utf-8');
    expect(text).toBe(`<p>${'\uFFFD'.repeat(6)}`);
  });

  it('survives a wrong header: UTF-8 bytes labelled Shift_JIS or UTF-16', () => {
    expect(decodeBody(utf8('<p>Привет'), 'text/html; charset=shift_jis').text.startsWith('<p>')).toBe(true);
    // An odd number of bytes cannot be UTF-16: the dangling byte becomes U+FFFD.
    const odd = decodeBody(bytes('abc'), 'text/html; charset=utf-16le');
    expect(odd.charset).toBe('utf-16le');
    expect(odd.text.endsWith('\uFFFD')).toBe(true);
  });

  it('decodes the same way on repeated calls (cached decoders keep no state)', () => {
    const truncated = bytes([0xe6, 0x97]); // first two bytes of "日"
    expect(decodeBody(truncated, null).text).toBe('\uFFFD');
    expect(decodeBody(bytes([0xa5]), null).text).toBe('\uFFFD');
    expect(decodeBody(utf8('日'), null).text).toBe('日');
  });
});
