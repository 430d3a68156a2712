import { BaseSequencer, type TestSpecification } from 'vitest/node';

/**
 * The files that run for a minute or more on two cores (crawls of the scale web, kill -9
 * rounds, browsers, a PostgreSQL cluster per file), longest first. vitest starts the
 * files it has timings for longest first, but a fresh checkout has none, and then it
 * starts the biggest files first: these small ones started last and ran alone at the end
 * (the scale web's file finished 172nd of 179 files, four minutes after the rest had
 * nearly drained). Started first, the short files fill in around them.
 */
const LONG_FILES = [
  'test/frontier/contract.test.ts',
  'test/bench/scale.test.ts',
  'test/render/render-bad-input.test.ts',
  'test/cli/resume.test.ts',
  'test/cli/postgres-bunnies.test.ts',
  'test/seen/crash.test.ts',
  'test/cli/cli.test.ts',
  'test/server/cluster.test.ts',
  'test/frontier/seen-crash.test.ts',
  'test/seen/contract.test.ts',
  'test/render/render-polite.test.ts',
  'test/render/capture.test.ts',
];

function rankOf(file: TestSpecification): number {
  const id = file.moduleId.replaceAll('\\', '/');
  const i = LONG_FILES.findIndex((long) => id.endsWith(`/${long}`));
  return i === -1 ? LONG_FILES.length : i;
}

/** vitest's own order (failed first, then longest by its timings, else biggest), with the long files before all. */
export default class SlowFirstSequencer extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    const order = await super.sort(files);
    return order
      .map((file, i) => ({ file, i, rank: rankOf(file) }))
      .sort((a, b) => a.rank - b.rank || a.i - b.i)
      .map((x) => x.file);
  }
}
