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

/**
 * The descendants of `root` whose process name matches (Linux /proc; none elsewhere): the
 * browser's processes, its zygote and renderers included.
 */
export async function processTree(root: number, name: RegExp): Promise<ProcessInfo[]> {
  let entries: string[];
  try {
    entries = await readdir('/proc');
  } catch {
    return [];
  }
  const all = (
    await Promise.all(entries.filter((e) => /^\d+$/.test(e)).map((e) => readProcess(Number(e))))
  ).filter((p): p is ProcessInfo => p !== null);
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
    if (name.test(p.name)) found.push(p);
    stack.push(...(children.get(p.pid) ?? []));
  }
  return found;
}

/** Summed resident memory of processTree(root, name). */
export async function processTreeRss(root: number, name: RegExp): Promise<number> {
  return (await processTree(root, name)).reduce((sum, p) => sum + p.rssBytes, 0);
}
