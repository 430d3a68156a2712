import { mulberry32, type Random, randomInt } from './prng.js';

// A few non-ASCII words so pages exercise UTF-8 decoding across chunk boundaries.
const WORDS = (
  'lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut labore ' +
  'et dolore magna aliqua enim ad minim veniam quis nostrud exercitation ullamco laboris nisi aliquip ' +
  'ex ea commodo consequat duis aute irure in reprehenderit voluptate velit esse cillum fugiat nulla ' +
  'pariatur excepteur sint occaecat cupidatat non proident sunt culpa qui officia deserunt mollit anim ' +
  'id est laborum café naïve façade résumé crawler spider web frontier politeness'
).split(' ');

/**
 * One long text built once; paragraphs are slices of it at page-chosen offsets. Slicing is
 * far cheaper than drawing words per page, which matters because pages render per request
 * on a core the benchmark shares with the crawler.
 */
const CORPUS = buildCorpus(mulberry32(0x10be11), 16_384);

function buildCorpus(random: Random, length: number): string {
  const words: string[] = [];
  let size = 0;
  while (size < length) {
    const word = WORDS[randomInt(random, WORDS.length)] ?? 'lorem';
    words.push(word);
    size += word.length + 1;
  }
  return words.join(' ');
}

/** About `length` characters of lorem-like text (no markup characters), starting on a word. */
export function loremText(random: Random, length: number): string {
  const wanted = Math.max(1, Math.min(length, CORPUS.length - 1));
  const start = randomInt(random, CORPUS.length - wanted);
  const wordStart = CORPUS.indexOf(' ', start) + 1;
  return CORPUS.slice(wordStart, wordStart + wanted).trim();
}

// Code samples as documentation pages show them: markup characters escaped, as they must be.
const CODE_LINES = [
  'import { crawl } from &quot;cobweb&quot;;',
  'const summary = await crawl({ seeds: [&quot;https://example.com/&quot;], concurrency: 32 });',
  'if (summary.fetchedThisRun &gt; 0 &amp;&amp; summary.errors === 0) console.log(&quot;done&quot;);',
  'for (const page of pages) { total += page.links.length; }',
  'export default { name: &quot;headings&quot;, onPage(page, ctx) { return { n: 1 }; } };',
  'const html = `&lt;a href=&quot;/next&quot;&gt;next&lt;/a&gt;`;',
  'function retry(n) { return n &lt; 3 ? wait(100 * 2 ** n) : fail(); }',
];
const CODE = CODE_LINES.join('\n').repeat(40);

/** About `length` characters of code-like text, entity-escaped, starting on a line. */
export function codeText(random: Random, length: number): string {
  const wanted = Math.max(1, Math.min(length, CODE.length - 1));
  const start = randomInt(random, CODE.length - wanted);
  const lineStart = CODE.indexOf('\n', start) + 1;
  const text = CODE.slice(lineStart, lineStart + wanted);
  // Ends on a whole line, so no entity is cut in two.
  const lineEnd = text.lastIndexOf('\n');
  return lineEnd > 0 ? text.slice(0, lineEnd) : text;
}
