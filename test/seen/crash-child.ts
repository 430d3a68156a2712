// A process that uses a seen set until it is killed: the kill -9 test's child.
// Run: node --import tsx test/seen/crash-child.ts <kind> <dir> <first batch>
// It makes calls four at a time, prints "resolved N" once call N has resolved, and every
// twelve calls, with none in flight, flushes and prints "flushed N" (all calls up to N).
// stdout is a pipe, which Node writes synchronously on Linux: a printed line was printed.
import { openSeenSet, type SeenKind } from '../../src/seen/open.js';
import { callOfBatch } from './fingerprint-data.js';

const [kind, dir, firstArg] = process.argv.slice(2);
const first = Number(firstArg);
const set = await openSeenSet(kind as SeenKind, {
  dir,
  capacity: 2_000_000,
  fpRate: 1e-7,
  bufferSize: 5_000,
  maxWaitMs: 1,
});

let issued = first;
for (;;) {
  const wave: Promise<void>[] = [];
  for (let j = 0; j < 4; j++) {
    const batch = issued++;
    const { call, fresh } = callOfBatch(batch, first);
    wave.push(
      set.insertNew(call).then((answer) => {
        const wrongRepeats = answer.slice(fresh).filter((isNew) => isNew).length;
        const wrongFresh = answer.slice(0, fresh).filter((isNew) => !isNew).length;
        if (wrongRepeats > 0 || (set.exact && wrongFresh > 0)) {
          process.stdout.write(`WRONG ${batch}: ${wrongRepeats} repeats new, ${wrongFresh} fresh seen\n`);
        }
        process.stdout.write(`resolved ${batch}\n`);
      }),
    );
  }
  await Promise.all(wave);
  if ((issued - first) % 12 === 0) {
    await set.flush();
    process.stdout.write(`flushed ${issued - 1}\n`);
  }
}
