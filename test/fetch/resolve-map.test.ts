import { describe, expect, it } from 'vitest';
import { resolveLookupOf } from '../../src/fetch/resolve-map.js';
import { OPTIONS } from '../../src/options/option-table.js';

describe('the --resolve map as a lookup', () => {
  it('maps an exact host:port, and nothing on another port', () => {
    const lookup = resolveLookupOf(new Map([['a.test:8080', '127.0.0.2']]));
    expect(lookup?.('a.test', '8080')).toBe('127.0.0.2');
    expect(lookup?.('a.test', '80')).toBeUndefined();
    expect(lookup?.('b.test', '8080')).toBeUndefined();
  });

  it('maps every host under a wildcard on its port, not the suffix itself', () => {
    const lookup = resolveLookupOf(new Map([['*.scale.test:80', '127.0.0.2']]));
    expect(lookup?.('h1.scale.test', '80')).toBe('127.0.0.2');
    expect(lookup?.('a.b.scale.test', '80')).toBe('127.0.0.2');
    expect(lookup?.('scale.test', '80')).toBeUndefined();
    expect(lookup?.('h1.scale.test', '443')).toBeUndefined();
    expect(lookup?.('h1.otherscale.test', '80')).toBeUndefined();
    // a hostname as a caller may spell it; URL hostnames are lowercase already
    expect(lookup?.('H1.Scale.Test', '80')).toBe('127.0.0.2');
  });

  it('lets an exact entry win over a wildcard, and the longest wildcard over a shorter one', () => {
    const lookup = resolveLookupOf(
      new Map([
        ['*.scale.test:80', '127.0.0.2'],
        ['*.dead.scale.test:80', '127.0.0.9'],
        ['h7.dead.scale.test:80', '127.0.0.3'],
      ]),
    );
    expect(lookup?.('h1.scale.test', '80')).toBe('127.0.0.2');
    expect(lookup?.('h1.dead.scale.test', '80')).toBe('127.0.0.9');
    expect(lookup?.('h7.dead.scale.test', '80')).toBe('127.0.0.3');
  });

  it('is absent for an empty map, so callers skip it', () => {
    expect(resolveLookupOf(new Map())).toBeNull();
    expect(resolveLookupOf(undefined)).toBeNull();
  });

  it('takes wildcards from the command line as the option parses them', () => {
    const kind = OPTIONS.resolve.kind;
    const parse = (text: string, previous?: ReadonlyMap<string, string>) => {
      if (kind.parse === undefined) throw new Error('--resolve takes a value');
      return kind.parse(text, previous);
    };
    const parsed = parse('*.Scale.Test:80:127.0.0.2', parse('h1.scale.test:80:[::1]'));
    expect(parsed).toEqual(
      new Map([
        ['h1.scale.test:80', '::1'],
        ['*.scale.test:80', '127.0.0.2'],
      ]),
    );
    expect(kind.check(parsed)).toBe(true);
    expect(resolveLookupOf(parsed)?.('h1.scale.test', '80')).toBe('::1');
  });
});
