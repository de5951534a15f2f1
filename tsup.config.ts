import { defineConfig } from 'tsup';

// Dual build: ESM (dist/index.js) and CommonJS (dist/index.cjs), each with its own declarations.
export default defineConfig({
  entry: { index: 'src/index.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  sourcemap: true,
  clean: true,
  target: 'node20',
  splitting: false,
});
