/**
 * Run by nvd-feed-streaming.test.ts in a process whose heap cannot hold the feed parsed at once:
 * reads every record of the file named by argv[2] the way `vulns:import` does (openVulnSource) and
 * prints the count and the peak heap used.
 */
import { openVulnSource } from '../../../src/services/vulns/vuln-files';

async function main(): Promise<void> {
  const source = await openVulnSource(process.argv[2]);
  let records = 0;
  let peakHeap = 0;
  for await (const record of source.records()) {
    if (record) records++;
    if (records % 1000 === 0) peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  }
  peakHeap = Math.max(peakHeap, process.memoryUsage().heapUsed);
  process.stdout.write(JSON.stringify({ kind: source.kind, records, peakHeapMb: peakHeap / 1_048_576 }));
}

main().catch((error: unknown) => {
  console.error(error);
  process.exit(1);
});
