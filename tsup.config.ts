import { defineConfig } from 'tsup';

// Three outputs, built together (`npm run build` empties dist first, so no config cleans another's files):
// - the root entry, ESM and CommonJS, each with declarations;
// - `etcd-lease-provider/mastra`, likewise (kept apart: it needs @mastra/core at run time);
// - the `etcd-lease` CLI (cli/), ESM only (it locates itself with import.meta.url to fork demo workers). Its demo
//   bundles the shared launcher (cluster/), whose container driver loads the devDependency testcontainers only
//   when chosen: kept external, so the bundle neither carries it nor needs it to load.
export default defineConfig([
  {
    entry: { index: 'src/index.ts', 'mastra/index': 'src/mastra/index.ts' },
    format: ['esm', 'cjs'],
    dts: true,
    sourcemap: true,
    clean: false,
    target: 'node20',
    splitting: false,
    external: ['@mastra/core'],
  },
  {
    entry: { cli: 'cli/main.ts' },
    format: ['esm'],
    dts: false,
    sourcemap: true,
    clean: false,
    target: 'node20',
    splitting: false,
    external: ['testcontainers'],
  },
]);
