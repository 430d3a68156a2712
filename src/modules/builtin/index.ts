/**
 * The built-in modules, on by default; each is a plain module loaded like any other.
 * (Run from the TypeScript sources, as the tests do, they are the .ts files.)
 */
const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

export const BUILTIN_MODULES: readonly string[] = ['forms', 'meta', 'server'].map(
  (name) => new URL(`./${name}.${extension}`, import.meta.url).href,
);
