/**
 * The built-in modules, on by default; each is a plain module loaded like any other.
 * (Run from the TypeScript sources, as the tests do, they are the .ts files.)
 */
const extension = import.meta.url.endsWith('.ts') ? 'ts' : 'js';

/** Their names: a bunny says in HELLO that it runs them itself. */
export const BUILTIN_NAMES: readonly string[] = ['forms', 'meta', 'server'];

export const BUILTIN_MODULES: readonly string[] = BUILTIN_NAMES.map(
  (name) => new URL(`./${name}.${extension}`, import.meta.url).href,
);
