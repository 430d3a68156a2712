import { describe, expect, it } from 'vitest';
import { linkRulesOf } from '../../src/assembly/parts.js';
import { routeLinks } from '../../src/bunny/links.js';
import { DEFAULTS } from '../../src/options/options.js';
import { bunnySettingsFrom, settingsForBunnies } from '../../src/server/bunny-settings.js';

/** What WELCOME carries to bunnies, so they filter links as the server would. */

const server = {
  ...DEFAULTS,
  scope: 'host' as const,
  include: [/\/docs\//],
  exclude: [/logout/],
  skipExtensions: ['jpg'],
  skipSubstrings: ['cgi-bin'],
  maxDepth: 3,
  perHost: 4,
};

describe('bunny settings', () => {
  it('come back from their JSON as the server gave them, --skip-substring included', () => {
    const json = JSON.parse(JSON.stringify(settingsForBunnies(server, ['http://a.test/docs/'])));
    const back = bunnySettingsFrom(json);
    expect(back).toMatchObject({
      seeds: ['http://a.test/docs/'],
      scope: 'host',
      skipExtensions: ['jpg'],
      skipSubstrings: ['cgi-bin'],
      maxDepth: 3,
      perHost: 4,
    });
    expect(back?.include?.map(String)).toEqual(['/\\/docs\\//']);
  });

  it('make a bunny refuse the links the server refuses, the substring test too', () => {
    const back = bunnySettingsFrom(
      JSON.parse(JSON.stringify(settingsForBunnies(server, ['http://a.test/docs/']))),
    );
    if (back === null) throw new Error('settings not read');
    const rules = linkRulesOf(back, back.seeds);
    const routed = routeLinks(
      ['/docs/ok', '/docs/cgi-bin/x', '/docs/a.jpg', '/docs/logout', 'http://b.test/docs/'],
      'http://a.test/docs/',
      { url: 'http://a.test/docs/', depth: 0 },
      rules,
    );
    expect(routed.accepted.map((l) => l.url)).toEqual(['http://a.test/docs/ok']);
    expect(routed.rejected.map((r) => r.reason)).toEqual(['substring', 'extension', 'exclude', 'scope']);
  });

  it('from a server that sends no skipSubstrings: none', () => {
    const json = JSON.parse(JSON.stringify(settingsForBunnies(server, [])));
    delete json.skipSubstrings;
    expect(bunnySettingsFrom(json)?.skipSubstrings).toEqual([]);
  });

  it("carry the most of a host's URLs leased at once: a host section's perHost above the crawl's", () => {
    const sections = {
      ...server,
      perHost: 1,
      hosts: { 'big.test': { perHost: 4 }, 'b.test': { delayMs: 5 } },
    };
    const back = bunnySettingsFrom(JSON.parse(JSON.stringify(settingsForBunnies(sections, []))));
    expect(back).toMatchObject({ perHost: 1, connectionsPerHost: 4 });
    expect(bunnySettingsFrom(JSON.parse(JSON.stringify(settingsForBunnies(server, []))))).toMatchObject({
      perHost: 4,
      connectionsPerHost: 4,
    });
  });

  it('from a server that sends no perHost, or a bad one: the bunny keeps its own', () => {
    const json = JSON.parse(JSON.stringify(settingsForBunnies(server, [])));
    delete json.perHost;
    delete json.connectionsPerHost;
    expect(bunnySettingsFrom(json)).not.toHaveProperty('perHost');
    expect(bunnySettingsFrom(json)).not.toHaveProperty('connectionsPerHost');
    expect(bunnySettingsFrom({ ...json, perHost: 0 })).not.toHaveProperty('perHost');
    expect(bunnySettingsFrom({ ...json, perHost: 'many' })).not.toHaveProperty('perHost');
  });
});
