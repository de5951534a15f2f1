import { defineConfig } from 'vitest/config';

// Two projects: `unit` (tests beside the sources of the library, the CLI, the cluster launcher, the history
// checkers and the benchmark; none starts etcd, they run in parallel) and `cluster` (everything under test/,
// which starts real etcd members: run one file at a time on a 2-core machine). The cluster project's global
// setup chooses once how members run (an etcd binary, else Docker), or stops the run with one message.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{src,cli,launcher,safety-checker,bench}/**/*.test.ts'],
        },
      },
      {
        test: {
          name: 'cluster',
          include: ['test/**/*.test.ts'],
          fileParallelism: false,
          globalSetup: ['test/harness/global-setup.ts'],
          testTimeout: 60_000,
          hookTimeout: 120_000,
          env: { TESTCONTAINERS_RYUK_DISABLED: 'true' },
        },
      },
    ],
  },
});
