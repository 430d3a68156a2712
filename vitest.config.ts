import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/global-setup.ts'],
    // Tests start real servers, child processes and browsers, and wait on them as much as
    // they compute: three at once on two cores took 523 s against 680 s with two; later,
    // with more tests, four took 675 s against 718 s with three, all passing.
    maxWorkers: 4,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
