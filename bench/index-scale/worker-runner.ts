import { execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { StageCpuSnapshot } from '../../src/platform/stage-meter';
import { BenchProcess, spawnScript } from '../hot-path/processes';

const DIST_SRC = join(__dirname, '..', '..', 'src');
const WORKER_SCRIPT = join(DIST_SRC, 'worker-main.js');
const CLI_SCRIPT = join(DIST_SRC, 'admin', 'cli.js');
const TICKS_PER_SECOND = 100;

/** CPU time (user + system) of a process so far, in ms; 0 when it cannot be read. */
export function cpuMsOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return 0;
  }
}

/** Resident memory of a process, in MB; 0 when it cannot be read. */
export function rssMbOf(pid: number | undefined): number {
  if (!pid) return 0;
  try {
    const match = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return match ? Math.round(Number(match[1]) / 1024) : 0;
  } catch {
    return 0;
  }
}

export function mariadbPid(): number | undefined {
  for (const name of ['mariadbd', 'mysqld']) {
    try {
      return Number(execFileSync('pidof', [name], { encoding: 'utf8' }).trim().split(/\s+/)[0]) || undefined;
    } catch {
      // not this name
    }
  }
  return undefined;
}

export interface ImportOutcome {
  seconds: number;
  summary: { read: number; imported: number; invalid: number; queued: number };
}

/** The operator's command: `node dist/src/admin/cli.js sites:import --file F --format plain --crawl`. */
export async function importList(file: string, env: NodeJS.ProcessEnv): Promise<ImportOutcome> {
  const started = process.hrtime.bigint();
  const child = spawn(
    process.execPath,
    [CLI_SCRIPT, 'sites:import', '--file', file, '--format', 'plain', '--crawl', '--json'],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const code = await new Promise<number | null>((resolve) => child.once('exit', resolve));
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  if (code !== 0) throw new Error(`sites:import exited with ${code}:\n${stdout}\n${stderr}`);
  // The summary is the command's one JSON line (--json) that has the counts; log lines may surround it.
  for (const line of stdout.trim().split('\n').reverse()) {
    try {
      const summary = JSON.parse(line) as Partial<ImportOutcome['summary']>;
      if (typeof summary.queued === 'number')
        return { seconds, summary: summary as ImportOutcome['summary'] };
    } catch {
      // not JSON
    }
  }
  throw new Error(`sites:import printed no summary:\n${stdout.slice(-2000)}\n${stderr.slice(-2000)}`);
}

export interface RunningWorker {
  process: BenchProcess;
  rssAtStartMb: number;
}

/** `node dist/src/worker-main.js` (as `npm run worker`), once it has logged that it started. */
export async function startWorker(env: NodeJS.ProcessEnv, profileDir?: string): Promise<RunningWorker> {
  const worker = spawnScript(WORKER_SCRIPT, [], env, [
    ...(profileDir ? ['--cpu-prof', `--cpu-prof-dir=${profileDir}`] : []),
    // INDEX_SCALE_HEAP_SNAPSHOT=dir: `kill -USR2 <worker pid>` during a run writes a heap snapshot
    // there (summarise it with bench/memory/heap-summary.ts).
    ...(process.env.INDEX_SCALE_HEAP_SNAPSHOT
      ? ['--heapsnapshot-signal=SIGUSR2', `--diagnostic-dir=${process.env.INDEX_SCALE_HEAP_SNAPSHOT}`]
      : []),
  ]);
  for (let waited = 0; !/worker started/.test(worker.output()); waited += 50) {
    if (worker.child.exitCode !== null || waited > 120_000)
      throw new Error(`the worker did not start:\n${worker.output().slice(-4000)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { process: worker, rssAtStartMb: rssMbOf(worker.child.pid) };
}

/** A JSON log line of the worker with its message. */
export function logLines(output: string, message: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  const needle = `"msg":"${message}"`;
  for (const line of output.split('\n')) {
    if (!line.includes(needle)) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut by the capture
    }
  }
  return lines;
}

/** The worker's latest "stage cpu" line (STAGE_CPU_LOG_SECONDS), or undefined before its first. */
export function latestStageCpu(output: string): StageCpuSnapshot | undefined {
  const at = output.lastIndexOf('"msg":"stage cpu"');
  if (at < 0) return undefined;
  const start = output.lastIndexOf('\n', at) + 1;
  const end = output.indexOf('\n', at);
  try {
    return (JSON.parse(output.slice(start, end < 0 ? undefined : end)) as { stageCpu: StageCpuSnapshot })
      .stageCpu;
  } catch {
    return undefined;
  }
}
