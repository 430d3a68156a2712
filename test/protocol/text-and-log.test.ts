import { describe, expect, it } from 'vitest';
import {
  encode,
  formatSiteLine,
  ProtocolError,
  parseSiteLine,
  readTextAnswer,
  type SiteLogLine,
  textAnswerBytes,
} from '../../src/protocol/index.js';

describe('text answers (SHOWDATA, MODSTAT, NEWMOD)', () => {
  it('are read as text', () => {
    const text = 'sites: 2\n93.184.216.34:80 example.com 12\n';
    expect(readTextAnswer(textAnswerBytes(text))).toEqual({ kind: 'text', text });
    expect(readTextAnswer(Buffer.alloc(0))).toEqual({ kind: 'text', text: '' });
  });

  it('tell an ERROR packet from text by its first byte', () => {
    const error = encode({
      type: 'ERROR',
      requestId: 0,
      more: false,
      body: { code: 200, message: 'QUIT needs the token' },
    });
    expect(readTextAnswer(error)).toEqual({ kind: 'error', code: 200, message: 'QUIT needs the token' });
  });

  it('keep every ERROR packet short enough to start below 0x09, even with a long message', () => {
    const message = `${'é'.repeat(3000)} what to do`;
    const error = encode({ type: 'ERROR', requestId: 0, more: false, body: { code: 204, message } });
    expect(error.length).toBeLessThanOrEqual(2048);
    expect(error[0]).toBeLessThan(0x09);
    const read = readTextAnswer(error);
    expect(read.kind).toBe('error');
    if (read.kind === 'error') {
      expect(read.message.endsWith('…')).toBe(true);
      expect(message.startsWith(read.message.slice(0, -1))).toBe(true);
    }
  });

  it('never start text with a byte below 0x09', () => {
    expect(textAnswerBytes('\x00\x01\x08hello')[0]).toBe('h'.charCodeAt(0));
    expect(textAnswerBytes('\thello')[0]).toBe(0x09);
  });

  it('report garbage that is neither text nor an ERROR by code', () => {
    expect(readTextAnswer(Buffer.from([0x00, 0x05, 0x24, 0x00]))).toMatchObject({ kind: 'error', code: 100 });
    expect(readTextAnswer(Buffer.from([0x00, 0x03, 0x04]))).toMatchObject({ kind: 'error', code: 112 });
  });
});

describe('the log file (LOGDATA, READDATA, QUIT)', () => {
  const site: SiteLogLine = {
    origin: 'http://example.com',
    address: '93.184.216.34',
    port: 80,
    hosts: ['example.com', 'www.example.com'],
    count: 12,
    directories: ['/', '/docs/'],
    info: { server: { software: 'nginx' } },
  };

  it('is one JSON object per site per line, read back as written', () => {
    const line = formatSiteLine(site);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.indexOf('\n')).toBe(line.length - 1);
    expect(parseSiteLine(line)).toEqual(site);
    expect(JSON.parse(line)).toEqual(site);
  });

  it('refuses a line that is not a site, saying which field', () => {
    const bad = (patch: Record<string, unknown>) => {
      try {
        parseSiteLine(JSON.stringify({ ...site, ...patch }));
      } catch (e) {
        expect(e).toBeInstanceOf(ProtocolError);
        return (e as ProtocolError).message;
      }
      throw new Error('expected an error');
    };
    expect(bad({ origin: 'ftp://x' })).toMatch(/origin/);
    expect(bad({ port: 70000 })).toMatch(/port/);
    expect(bad({ hosts: [] })).toMatch(/hosts/);
    expect(bad({ directories: ['docs/'] })).toMatch(/directories\[0\]/);
    expect(bad({ count: -1 })).toMatch(/count/);
    expect(bad({ info: [] })).toMatch(/info/);
    expect(() => parseSiteLine('{"origin":')).toThrow(/not JSON/);
  });
});
