import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}

interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

/**
 * Where the workers' CPU went, from the V8 profiles they wrote (--cpu-prof, INDEX_SCALE_CPU_PROFILE):
 * self time per place, a dependency by its package, the service by its source folder, so that
 * "fetch/store/rest" of the stage figures splits into the HTTP client, the ORM, the driver...
 */
export function profileShares(dir: string, top = 14): string[] {
  if (!existsSync(dir)) return [];
  const totals = new Map<string, number>();
  let all = 0;
  for (const file of readdirSync(dir).filter((name) => name.endsWith('.cpuprofile'))) {
    const profile = JSON.parse(readFileSync(join(dir, file), 'utf8')) as CpuProfile;
    const placeOf = new Map(profile.nodes.map((node) => [node.id, placeOfFrame(node.callFrame)]));
    profile.samples.forEach((id, i) => {
      const place = placeOf.get(id) ?? '(unknown)';
      const micros = profile.timeDeltas[i] ?? 0;
      if (place === '(idle)') return;
      totals.set(place, (totals.get(place) ?? 0) + micros);
      all += micros;
    });
  }
  return [...totals]
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .map(([place, micros]) => `${((100 * micros) / Math.max(1, all)).toFixed(1)}% ${place}`);
}

function placeOfFrame(frame: { functionName: string; url: string }): string {
  const { url, functionName } = frame;
  if (functionName === '(idle)' || functionName === '(program)') return '(idle)';
  if (functionName === '(garbage collector)') return 'garbage collection';
  const dependency = /node_modules\/((?:@[^/]+\/)?[^/]+)/.exec(url);
  if (dependency) return dependency[1];
  const own = /dist\/src\/([^/]+(?:\/[^/]+)?)\//.exec(url) ?? /dist\/src\/([^/]+)\.js/.exec(url);
  if (own) return `service: ${own[1]}`;
  if (url.startsWith('node:') || url === '') return `Node.js core${functionName ? ` (${functionName})` : ''}`;
  return url;
}
