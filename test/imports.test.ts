import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { describe, expect, it } from 'vitest';

// The house rule of docs/architecture.md: imports run one way. No two files of src/
// import each other, directly or round a longer circle, and no two of its top-level
// folders do. Type-only imports count too: a circle of types is a circle of ideas.

const SRC = resolve(import.meta.dirname, '../src');

/** Every .ts file under `dir`. */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') && !entry.name.endsWith('.d.ts') ? [path] : [];
  });
}

/** The relative modules a file names: `from '...'`, `import '...'`, `import('...')`. */
function importsOf(text: string): string[] {
  const specs: string[] = [];
  const pattern = /(?:\bfrom\s+|\bimport\s+|\bimport\(\s*)(['"])(\.{1,2}\/[^'"]+)\1/g;
  for (const match of text.matchAll(pattern)) specs.push(match[2] as string);
  return specs;
}

/** A file's edges to the files of src/ it imports. */
function graphOf(files: readonly string[]): Map<string, string[]> {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const targets = importsOf(readFileSync(file, 'utf8'))
      .map((spec) => resolve(dirname(file), spec).replace(/\.js$/, '.ts'))
      .filter((target) => known.has(target) && target !== file);
    graph.set(file, [...new Set(targets)]);
  }
  return graph;
}

/** The strongly connected parts of more than one node (Tarjan's algorithm): each is a circle. */
function circlesOf(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const circles: string[][] = [];
  const visit = (node: string): void => {
    index.set(node, next);
    low.set(node, next);
    next += 1;
    stack.push(node);
    onStack.add(node);
    for (const to of graph.get(node) ?? []) {
      if (!index.has(to)) {
        visit(to);
        low.set(node, Math.min(low.get(node) as number, low.get(to) as number));
      } else if (onStack.has(to)) low.set(node, Math.min(low.get(node) as number, index.get(to) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const part: string[] = [];
    let popped: string;
    do {
      popped = stack.pop() as string;
      onStack.delete(popped);
      part.push(popped);
    } while (popped !== node);
    if (part.length > 1) circles.push(part.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return circles;
}

/** `src/bunny/visit.ts` is in `bunny`; a file at the top, `src/index.ts`, is its own room. */
function folderOf(file: string): string {
  const [first] = relative(SRC, file).split('/');
  return first as string;
}

describe('the imports of src/', () => {
  const files = sourceFiles(SRC);
  const graph = graphOf(files);

  it('form no circle between two files', () => {
    const circles = circlesOf(graph).map((c) => c.map((f) => relative(SRC, f)));
    expect(circles).toEqual([]);
  });

  it('form no circle between two top-level folders', () => {
    const folders = new Map<string, Set<string>>();
    for (const [file, targets] of graph) {
      const from = folderOf(file);
      const edges = folders.get(from) ?? new Set<string>();
      for (const target of targets) if (folderOf(target) !== from) edges.add(folderOf(target));
      folders.set(from, edges);
    }
    const asLists = new Map([...folders].map(([k, v]) => [k, [...v]]));
    // Each circle named with the files that make its arrows, for the one who must break it.
    const circles = circlesOf(asLists).map((circle) => {
      const inCircle = new Set(circle);
      return [...graph].flatMap(([file, targets]) =>
        targets
          .filter(
            (t) =>
              folderOf(t) !== folderOf(file) && inCircle.has(folderOf(t)) && inCircle.has(folderOf(file)),
          )
          .map((t) => `${relative(SRC, file)} -> ${relative(SRC, t)}`),
      );
    });
    expect(circles).toEqual([]);
  });

  it('are found by the reader above, so that an empty answer means something', () => {
    // The check is only as good as its reading of imports: these shapes must all be seen.
    const text = [
      "import { a } from './a.js';",
      "import type { B } from '../b/b.js';",
      "export { c } from './c.js';",
      "import './d.js';",
      "const e = await import('./e.js');",
      'import {\n  f,\n  g,\n} from "./fg.js";',
      "import { h } from 'node:path';",
    ].join('\n');
    expect(importsOf(text)).toEqual(['./a.js', '../b/b.js', './c.js', './d.js', './e.js', './fg.js']);
    const circle = new Map([
      ['x', ['y']],
      ['y', ['z']],
      ['z', ['x']],
      ['w', ['x']],
    ]);
    expect(circlesOf(circle)).toEqual([['x', 'y', 'z']]);
    expect(graph.size).toBeGreaterThan(100);
  });
});
