/** Re-renders the Markdown report of a benchmark JSON: `node bench/dist/render.js bench/results/query-….json`. */
import { readFileSync, writeFileSync } from 'node:fs';
import type { BenchResult } from './results';
import { renderMarkdown } from './report';

const [file] = process.argv.slice(2);
if (!file || !file.endsWith('.json')) {
  process.stderr.write('usage: node bench/dist/render.js <query-….json>\n');
  process.exit(2);
}
const bench = JSON.parse(readFileSync(file, 'utf8')) as BenchResult;
const markdown = renderMarkdown(bench);
writeFileSync(file.replace(/\.json$/, '.md'), markdown);
process.stdout.write(markdown);
