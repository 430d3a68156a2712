import { describe, expect, it } from 'vitest';
import { looksScriptBuilt, signsOf } from '../../src/render/auto-rule.js';
import { AUTO_FIXTURES } from '../helpers/auto-rule-pages.js';

describe("--render auto's rule on the fixture set", () => {
  it('renders at least 95% of the script-built pages and at most 5% of the others (docs/options.md gives the figures)', () => {
    const built = AUTO_FIXTURES.filter((f) => f.scriptBuilt);
    const whole = AUTO_FIXTURES.filter((f) => !f.scriptBuilt);
    const missed = built.filter((f) => !looksScriptBuilt(f.html)).map((f) => f.name);
    const wasted = whole.filter((f) => looksScriptBuilt(f.html)).map((f) => f.name);
    const truePositives = built.length - missed.length;
    const precision = truePositives / (truePositives + wasted.length);
    const recall = truePositives / built.length;
    console.log(
      `auto rule on ${AUTO_FIXTURES.length} fixtures: precision ${precision.toFixed(3)}, recall ${recall.toFixed(3)}; missed ${JSON.stringify(missed)}, rendered needlessly ${JSON.stringify(wasted)}`,
    );
    expect(recall).toBeGreaterThanOrEqual(0.95);
    expect(wasted.length / whole.length).toBeLessThanOrEqual(0.05);
  });

  it('reads the signs it decides by', () => {
    const s = signsOf(
      '<title>x</title><script type="application/ld+json">{"a":1}</script><script src=a.js></script><div id="root"></div><a href=/x>x</a> hello',
    );
    expect(s).toEqual({ textChars: 'x x hello'.length, scripts: 1, anchors: 1, appRoot: true });
    expect(looksScriptBuilt('<p>short</p>')).toBe(false);
  });
});
