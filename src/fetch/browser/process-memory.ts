import { readdir, readFile } from 'node:fs/promises';

export interface ProcessInfo {
  pid: number;
  ppid: number;
  name: string;
  rssBytes: number;
}

const PAGE_SIZE = 4096;

async function readProcess(pid: number): Promise<ProcessInfo | null> {
  try {
    const stat = await readFile(`/proc/${pid}/stat`, 'utf8');
    // "pid (name) state ppid ..."; the name may hold spaces and parentheses: cut at the last ")".
    const close = stat.lastIndexOf(')');
    const name = stat.slice(stat.indexOf('(') + 1, close);
    const fields = stat.slice(close + 2).split(' ');
    return { pid, ppid: Number(fields[1]), name, rssBytes: Number(fields[21]) * PAGE_SIZE };
  } catch {
    return null;
  }
}

async function allProcesses(): Promise<ProcessInfo[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const read = await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map((e) => readProcess(Number(e))));
  return read.filter((p): p is ProcessInfo => p !== null);
}

async function commandLineHas(pid: number, marker: string): Promise<boolean> {
  try {
    return (await readFile(`/proc/${pid}/cmdline`, 'utf8')).includes(marker);
  } catch {
    return false;
  }
}

/**
 * The processes of one browser (Linux /proc; none elsewhere): the process started with `marker` on
 * its command line, among the descendants of `root`, and everything below it (zygotes, renderers,
 * GPU and network services). Another browser of the same process is not counted.
 */
export async function processTree(root: number, marker: string): Promise<ProcessInfo[]> {
  const all = await allProcesses();
  const children = new Map<number, ProcessInfo[]>();
  for (const p of all) {
    const list = children.get(p.ppid);
    if (list) list.push(p);
    else children.set(p.ppid, [p]);
  }
  const found: ProcessInfo[] = [];
  const stack = [...(children.get(root) ?? [])];
  while (stack.length) {
    const p = stack.pop() as ProcessInfo;
    if (await commandLineHas(p.pid, marker)) {
      const tree = [p];
      while (tree.length) {
        const member = tree.pop() as ProcessInfo;
        found.push(member);
        tree.push(...(children.get(member.pid) ?? []));
      }
    } else {
      stack.push(...(children.get(p.pid) ?? []));
    }
  }
  return found;
}

/** Summed resident memory of processTree(root, marker). */
export async function processTreeRss(root: number, marker: string): Promise<number> {
  return (await processTree(root, marker)).reduce((sum, p) => sum + p.rssBytes, 0);
}
