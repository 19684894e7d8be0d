import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
  children?: number[];
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/** Layers of one request, matched on the script path of the sampled function (first match wins). */
const LAYERS: [string, RegExp][] = [
  ['SQLite driver (better-sqlite3)', /better-sqlite3/],
  ['MariaDB driver (mysql2)', /mysql2|node_modules\/(sqlstring|lru|denque|named-placeholders|long|iconv)/],
  ['TypeORM (query building, mapping)', /typeorm/],
  [
    'GraphQL execution (graphql-js, type-graphql)',
    /node_modules\/(graphql|type-graphql|graphql-scalars|class-validator)\//,
  ],
  ['Apollo Server', /@apollo|@as-integrations/],
  [
    'HTTP framework (express, helmet, body parsing)',
    /node_modules\/(express|router|body-parser|helmet|raw-body|qs|send|finalhandler|content-type|type-is|mime|on-finished|negotiator|accepts|cookie|path-to-regexp|iconv-lite|depd)/,
  ],
  ['service: metering, credits, quota', /dist\/src\/services\/(metering|credit|quota|hot-)/],
  ['service: auth and keys', /dist\/src\/services\/(auth|api-key)/],
  ['service: index reads and answer shaping', /dist\/src\/(services|resolvers|schema)\//],
  ['REST facade', /dist\/src\/rest-facade\//],
  ['GraphQL layer of the service (context, guards, limits)', /dist\/src\/graphql\//],
  ['logging and metrics (pino, prom-client)', /pino|prom-client|dist\/src\/(metrics|logger)/],
  ['other service code', /dist\/src\//],
  ['other dependencies', /node_modules/],
  ['Node.js core (HTTP, streams, timers)', /^node:|^internal|^$/],
];

/**
 * Self time of the samples of every .cpuprofile in `dir`, grouped by layer, as percentages of the
 * busy (non-idle) time, and the busy microseconds per request when `requests` is given.
 */
export function summariseProfiles(dir: string, requests?: number): string[] {
  const totals = new Map<string, number>();
  let busy = 0;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const byId = new Map(profile.nodes.map((node) => [node.id, node]));
    profile.samples.forEach((id, i) => {
      const node = byId.get(id)!;
      const name = node.callFrame.functionName;
      if (name === '(idle)' || name === '(program)') return;
      const micros = profile.timeDeltas[i] ?? 0;
      const layer =
        name === '(garbage collector)'
          ? 'garbage collection'
          : (LAYERS.find(([, pattern]) => pattern.test(node.callFrame.url))?.[0] ?? 'other');
      totals.set(layer, (totals.get(layer) ?? 0) + micros);
      busy += micros;
    });
  }
  const lines = [...totals]
    .sort((a, b) => b[1] - a[1])
    .map(([layer, micros]) => {
      const share = `${((micros / busy) * 100).toFixed(1).padStart(5)}%`;
      const perRequest = requests ? `  ${(micros / requests).toFixed(0).padStart(5)} µs/request` : '';
      return `  ${share}${perRequest}  ${layer}`;
    });
  if (requests) lines.push(`  busy CPU per request: ${(busy / requests).toFixed(0)} µs`);
  return lines;
}
