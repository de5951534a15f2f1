// Preloaded with `node --import …/peak-rss.mjs`: when the process exits, writes its peak resident set size (kB,
// as process.resourceUsage() reports it) to the file named by PEAK_RSS_FILE. Plain JavaScript so it also runs in
// front of the built CLI (dist/cli.js) without a TypeScript loader adding to what is measured.
import { writeFileSync } from 'node:fs';

process.on('exit', () => {
  const file = process.env.PEAK_RSS_FILE;
  if (file) writeFileSync(file, String(process.resourceUsage().maxRSS));
});
