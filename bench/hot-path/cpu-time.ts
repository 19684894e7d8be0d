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
export function cpuSecondsOf(pid: number | undefined): number | null {
  if (!pid) return null;
  try {
    // The command name (field 2) may hold spaces: count fields after its closing parenthesis.
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/** The MariaDB server's process on this machine (a server elsewhere is not measured). */
export function localMariaDbPid(): number | undefined {
  try {
    const pid = Number(execFileSync('pidof', ['mariadbd'], { encoding: 'utf8' }).trim().split(' ')[0]);
    return pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}
