import { defineConfig, type Options } from 'tsup';

// Four outputs, built together (`npm run build` empties dist first, so no config cleans another's files):
// - the root entry and `etcd-lease-provider/mastra` (kept apart: it needs @mastra/core at run time), as ESM and as
//   CommonJS, each with declarations. Both entries of one module system share one chunk of the code they have in
//   common, so each module — every error class above all — exists once: an error raised by `/mastra` is
//   `instanceof` the class imported from the root entry (test/package/packed.test.ts checks both systems).
//   esbuild splits only ESM; for CommonJS tsup splits as ESM and converts each chunk with rollup (`treeshake`), which
//   drops unused code and turns imports and exports into require and exports, leaving the rest as esbuild wrote it.
//   (tsup's other CommonJS splitting path, sucrase, also rewrites optional chaining and class fields into helper
//   calls, on the hot path.) The two module systems remain two copies, as for any dual
//   package: `isLeaseError` and `code` work across them, `instanceof` within one;
// - the `etcd-lease` CLI (cli/), ESM only (it locates itself with import.meta.url to fork demo workers). Its demo
//   bundles the shared launcher (launcher/), whose container driver loads the devDependency testcontainers only
//   when chosen: kept external, so the bundle neither carries it nor needs it to load.
// - `etcd-lease-provider/testing` (src/testing/, over the launcher and the safety checker), ESM and CommonJS, built
//   on its own: it shares no class a user compares with the root entry, and its CommonJS build needs tsup's shim of
//   import.meta.url (the launcher finds the package root with it). testcontainers stays external: an optional peer,
//   imported only when the container driver is chosen. No chunks (no splitting): one file per module system.
// No source maps: the output is not minified, so a stack trace already points at readable lines of dist/, and maps
// would point at src/ files the package does not ship (they were 2 MB of the 3 MB unpacked).
const library: Options = {
  entry: { index: 'src/index.ts', 'mastra/index': 'src/mastra/index.ts' },
  dts: true,
  sourcemap: false,
  clean: false,
  target: 'node22',
  splitting: true,
  external: ['@mastra/core'],
};

export default defineConfig([
  { ...library, format: ['esm'] },
  { ...library, format: ['cjs'], treeshake: true },
  {
    entry: { 'testing/index': 'src/testing/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: false,
    clean: false,
    target: 'node22',
    splitting: false,
    shims: true,
    external: ['testcontainers'],
  },
  {
    entry: { cli: 'cli/main.ts' },
    format: ['esm'],
    dts: false,
    sourcemap: false,
    clean: false,
    target: 'node22',
    splitting: false,
    external: ['testcontainers'],
  },
]);
