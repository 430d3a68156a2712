import type { Bodies } from '../protocol/index.js';

/**
 * The server's modules with page hooks that a bunny will not run, from what its HELLO
 * says it runs: the modules it has of its own (`modules`, a cobweb bunny's built-ins),
 * and, when it loads them (`loadsModules`), those the server pushes. A bunny that says
 * neither (one that cannot run JavaScript) runs none: its pages get no records from
 * them, and the server says so rather than let data/<module>.jsonl go quietly short.
 */
export function missingModules(
  withPageHooks: readonly string[],
  pushed: readonly string[],
  hello: Pick<Bodies['HELLO'], 'modules' | 'loadsModules'>,
): string[] {
  const runs = new Set(hello.modules ?? []);
  if (hello.loadsModules === true) for (const name of pushed) runs.add(name);
  return withPageHooks.filter((name) => !runs.has(name));
}
