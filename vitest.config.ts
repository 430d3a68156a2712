import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // Tests start real servers, child processes and browsers, and wait on them as much as
    // they compute: three at once on two cores kept the suite under 10 minutes (523 s
    // against 680 s with two), all passing.
    maxWorkers: 3,
    testTimeout: 60_000,
    hookTimeout: 60_000,
  },
});
