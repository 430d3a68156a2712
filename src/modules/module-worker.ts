/**
 * The modules' thread. It loads modules (each into a slot), then answers "run onPage on
 * these pages" and "run onSite on this site" from ModuleThread, for every module in
 * slot order (hook-runner.ts). Before each call the thread writes which call it is into
 * shared memory, so when a module holds the thread for good, the crawl knows whose call
 * it was and can start the thread again without it.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { HookRunner } from './hook-runner.js';
import { BEAT_MS, type FromWorker, sharedViews, type ToWorker, type WorkerSetup } from './protocol.js';

const port = parentPort;
if (port === null) throw new Error('module-worker.js runs as a worker thread');
const setup = workerData as WorkerSetup;
const { beat, call: current } = sharedViews(setup.shared);

// The heartbeat: it stops when a module's code keeps the thread from its event loop.
const heartbeat = () => Atomics.store(beat, 0, BigInt(Date.now()));
heartbeat();
setInterval(heartbeat, BEAT_MS);

function send(msg: FromWorker): void {
  port?.postMessage(msg);
}

const runner = new HookRunner({
  timeoutMs: setup.timeoutMs,
  dataDir: setup.dataDir,
  log: (slot, message) => send({ kind: 'log', slot, message }),
  starting(id, slot, page) {
    // Each call starts with a beat and says whose it is: the calls of a request run one
    // after another, and only one call that keeps the thread past the timeout is a hang.
    heartbeat();
    Atomics.store(current, 0, id);
    Atomics.store(current, 1, slot);
    Atomics.store(current, 2, page);
  },
});

// Loads go one after another, each filling its slot; pages and sites are answered once the
// loads sent before them are done, their calls overlapping with those of requests still
// waiting on I/O.
let loading: Promise<void> = Promise.resolve();
port.on('message', (msg: ToWorker) => {
  if (msg.kind === 'load') {
    loading = loading.then(async () => {
      const report = await runner.load(msg.path, msg.selfTest, msg.id, msg.slot);
      send({ kind: 'loaded', id: msg.id, report });
    });
    return;
  }
  void loading.then(async () => {
    const answer = await runner.answer(msg);
    send({ kind: msg.kind, id: msg.id, ...answer });
  });
});
