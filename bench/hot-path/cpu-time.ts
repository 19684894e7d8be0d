import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';

/** Clock ticks per second of /proc/<pid>/stat's times (USER_HZ, 100 on Linux). */
const TICKS_PER_SECOND = 100;

/**
 * CPU seconds (user + system) a process has used so far, from /proc (Linux), or null where it
 * cannot be read. The throughput of a run here moves by up to a quarter from one run to the next
 * (two cores shared by the service, its database and the load generator); the CPU each process
 * spent per request, printed beside each figure, tells a run in which the service did more work
 * from one in which it waited (for a core, for the database).
 */
export function cpuSecondsOf(pid: number | undefined, thread?: 'main thread'): number | null {
  if (!pid) return null;
  try {
    // A process's main thread has the process's id as its thread id.
    const path = thread ? `/proc/${pid}/task/${pid}/stat` : `/proc/${pid}/stat`;
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const stat = readFileSync(path, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** The MariaDB server's process on this machine (a server elsewhere is not measured). */
export const localMariaDbPid = (): number | undefined => localPid('mariadbd');

/** The Redis server's process on this machine. */
export const localRedisPid = (): number | undefined => localPid('redis-server');

function localPid(program: string): number | undefined {
  try {
    const pid = Number(execFileSync('pidof', [program], { encoding: 'utf8' }).trim().split(' ')[0]);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/**
 * CPU seconds of the whole machine so far, busy and idle, summed over its cores (/proc/stat): what
 * a measurement left idle tells whether a figure was short of cores or waiting.
 */
export function machineCpuSeconds(): { busy: number; idle: number } | null {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0].trim().split(/\s+/);
    const [user, nice, system, idle, iowait, irq, softirq, steal] = ticks.map(Number);
    return {
      busy: (user + nice + system + irq + softirq + steal) / TICKS_PER_SECOND,
      idle: (idle + iowait) / TICKS_PER_SECOND,
    };
  } catch {
    return null;
  }
}
