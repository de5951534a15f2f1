import { configDefaults, defineConfig } from 'vitest/config';

/**
 * Suites under test/ that start no etcd: the in-memory anchors of the lease contract and the pubsub conformance,
 * the chaos holders and the lease model against Mastra's in-memory provider, the Kubernetes manifests, Mastra's
 * lease resolution with a recording provider, TLS probes against local servers, secret handling in settings, and
 * the cluster project's own stop-without-etcd check. They run in the unit project, so `npm run test:unit` runs
 * them on a machine without etcd; the cluster project leaves them out, so nothing runs twice.
 */
const suitesWithoutEtcd = [
  'test/chaos/holder.test.ts',
  'test/package/support/engines.test.ts',
  'test/contract/event-emitter.contract.test.ts',
  'test/contract/run-metadata-model.contract.test.ts',
  'test/harness/global-setup.test.ts',
  'test/mastra/kubernetes-manifests.test.ts',
  'test/mastra/mastra-runtime-lease-resolution.test.ts',
  'test/pubsub/broken/event-checker-controls.test.ts',
  'test/pubsub/conformance/event-emitter.conformance.test.ts',
  'test/security/config.test.ts',
  'test/security/lease-model.test.ts',
  'test/security/tls-probe.test.ts',
];

/**
 * Suites that hold faults for tens of seconds to minutes, and those that pack the tarball: `npm run test:long`, not
 * `npm test`, which stays within 15 minutes on a 2-core machine. The rule is the file's place or name, so a new suite
 * lands in the right script without an edit here:
 * - test/chaos/: the chaos and composed-fault runs and their negative controls;
 * - test/safety/: the safety property under faults of the client itself (clock steps and suspends during calls,
 *   in-process reorderings, late releases, lease-id collisions), each with a deliberately broken variant it flags;
 * - test/package/: the packed tarball installed into fresh apps (ESM, CJS, the testing entry);
 * - any file named `*.long.test.ts`: a member hung for a minute, overload past capacity, Mastra across processes.
 * Keep a suite that takes more than about 20 s out of `npm test` by placing or naming it so.
 */
const longSuites = ['test/chaos/**/*.test.ts', 'test/safety/**/*.test.ts', 'test/package/**/*.test.ts', 'test/**/*.long.test.ts'];

/** What both etcd projects share: real members, one file at a time on a 2-core machine. */
const withEtcd = {
  fileParallelism: false,
  globalSetup: ['test/harness/global-setup.ts'],
  testTimeout: 60_000,
  hookTimeout: 120_000,
  env: { TESTCONTAINERS_RYUK_DISABLED: 'true' },
};

// Three projects: `unit` (tests beside the sources of the library, the CLI, the etcd launcher, the safety checker and
// the benchmark, the public API's type tests, and the suites above; none starts etcd, they run in parallel);
// `cluster` (the rest of test/ but the long suites: real etcd members); `long` (the long suites). `npm test` runs
// `unit` and `cluster`, `npm run test:long` runs `long`. The etcd projects' global setup chooses once how members run
// (an etcd binary, else Docker), or stops the run with one message.
export default defineConfig({
  test: {
    projects: [
      {
        test: {
          name: 'unit',
          include: ['{src,cli,launcher,safety-checker,bench}/**/*.test.ts', ...suitesWithoutEtcd],
          // The public API's call forms: test/types/*.test-d.ts are compiled (by tsc), never run.
          typecheck: { enabled: true, include: ['test/types/**/*.test-d.ts'], tsconfig: 'test/types/tsconfig.json' },
        },
      },
      {
        test: {
          name: 'cluster',
          include: ['test/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...suitesWithoutEtcd, ...longSuites],
          ...withEtcd,
        },
      },
      {
        test: {
          name: 'long',
          include: longSuites,
          exclude: [...configDefaults.exclude, ...suitesWithoutEtcd],
          ...withEtcd,
        },
      },
    ],
  },
});
