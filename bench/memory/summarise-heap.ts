/**
 * Summarises V8 heap snapshots by constructor and retained size (the dominator tree of
 * heap-summary.ts): `node dist/bench/memory/summarise-heap.js FILE.heapsnapshot [top]`, e.g. for a
 * worker's snapshot taken during `npm run bench:index-scale` (INDEX_SCALE_HEAP_SNAPSHOT).
 */
import { heapSummaryLines, summariseHeapSnapshot } from './heap-summary';

const [file, top] = process.argv.slice(2);
if (!file) throw new Error('usage: summarise-heap FILE.heapsnapshot [top]');
for (const line of heapSummaryLines(summariseHeapSnapshot(file, Number(top ?? 20)))) console.log(line);
