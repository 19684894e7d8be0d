import { readFileSync } from 'node:fs';

interface Snapshot {
  snapshot: {
    meta: {
      node_fields: string[];
      node_types: [string[], ...unknown[]];
      edge_fields: string[];
      edge_types: [string[], ...unknown[]];
    };
  };
  nodes: number[];
  edges: number[];
  strings: string[];
}

export interface HeapGroup {
  name: string;
  count: number;
  selfBytes: number;
  /** What collecting every object of the group would free (nested objects of the group counted once). */
  retainedBytes: number;
}

export interface HeapRetainer {
  /** The object's group and, when it has one, its name (a closure's function, a string's text). */
  what: string;
  /** The edge from the object that dominates it: the property or variable holding it. */
  heldAs: string;
  retainedBytes: number;
}

export interface HeapSummary {
  totalBytes: number;
  nodes: number;
  groups: HeapGroup[];
  retainers: HeapRetainer[];
}

/**
 * Summarises a V8 heap snapshot (a `.heapsnapshot` file) as DevTools' summary view does: self and
 * retained size by constructor (other kinds of object under "(type)"), and the single objects that
 * retain the most. Retained sizes come from the dominator tree (Cooper, Harvey and Kennedy's
 * iterative algorithm over the graph without weak edges).
 */
export function summariseHeapSnapshot(file: string, top = 20): HeapSummary {
  const snap = JSON.parse(readFileSync(file, 'utf8')) as Snapshot;
  const meta = snap.snapshot.meta;
  const nodeFieldCount = meta.node_fields.length;
  const edgeFieldCount = meta.edge_fields.length;
  const typeOffset = meta.node_fields.indexOf('type');
  const nameOffset = meta.node_fields.indexOf('name');
  const selfOffset = meta.node_fields.indexOf('self_size');
  const edgeCountOffset = meta.node_fields.indexOf('edge_count');
  const edgeTypeOffset = meta.edge_fields.indexOf('type');
  const edgeNameOffset = meta.edge_fields.indexOf('name_or_index');
  const edgeToOffset = meta.edge_fields.indexOf('to_node');
  const nodeTypes = meta.node_types[0];
  const edgeTypes = meta.edge_types[0];
  const weak = edgeTypes.indexOf('weak');
  const shortcut = edgeTypes.indexOf('shortcut');
  const { nodes, edges, strings } = snap;
  const count = nodes.length / nodeFieldCount;

  // Each node's first edge (edges are stored node after node).
  const firstEdge = new Int32Array(count + 1);
  for (let n = 0, e = 0; n < count; n++) {
    firstEdge[n] = e;
    e += nodes[n * nodeFieldCount + edgeCountOffset] * edgeFieldCount;
    firstEdge[n + 1] = e;
  }
  const strong = (e: number): boolean => {
    const type = edges[e + edgeTypeOffset];
    return type !== weak && type !== shortcut;
  };
  const target = (e: number): number => edges[e + edgeToOffset] / nodeFieldCount;

  // Depth-first postorder from the root (node 0) over strong edges.
  const post = new Int32Array(count).fill(-1);
  const order = new Int32Array(count);
  const visited = new Uint8Array(count);
  const stack = new Int32Array(count);
  const cursor = new Int32Array(count);
  let reached = 0;
  let sp = 0;
  stack[0] = 0;
  visited[0] = 1;
  cursor[0] = firstEdge[0];
  while (sp >= 0) {
    const n = stack[sp];
    if (cursor[n] < firstEdge[n + 1]) {
      const e = cursor[n];
      cursor[n] += edgeFieldCount;
      if (!strong(e)) continue;
      const m = target(e);
      if (visited[m]) continue;
      visited[m] = 1;
      cursor[m] = firstEdge[m];
      stack[++sp] = m;
    } else {
      post[n] = reached;
      order[reached++] = n;
      sp--;
    }
  }

  // Predecessors of each reached node (compressed rows).
  const predStart = new Int32Array(count + 1);
  for (let n = 0; n < count; n++) {
    if (!visited[n]) continue;
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += edgeFieldCount)
      if (strong(e)) predStart[target(e) + 1]++;
  }
  for (let n = 0; n < count; n++) predStart[n + 1] += predStart[n];
  const preds = new Int32Array(predStart[count]);
  const fill = predStart.slice(0, count);
  for (let n = 0; n < count; n++) {
    if (!visited[n]) continue;
    for (let e = firstEdge[n]; e < firstEdge[n + 1]; e += edgeFieldCount)
      if (strong(e)) preds[fill[target(e)]++] = n;
  }

  // Immediate dominators, by postorder number.
  const idom = new Int32Array(reached).fill(-1);
  const rootPost = post[0];
  idom[rootPost] = rootPost;
  const intersect = (a: number, b: number): number => {
    while (a !== b) {
      while (a < b) a = idom[a];
      while (b < a) b = idom[b];
    }
    return a;
  };
  for (let changed = true; changed;) {
    changed = false;
    for (let i = reached - 2; i >= 0; i--) {
      const n = order[i];
      let dom = -1;
      for (let p = predStart[n]; p < predStart[n + 1]; p++) {
        const q = post[preds[p]];
        if (q < 0 || idom[q] < 0) continue;
        dom = dom < 0 ? q : intersect(q, dom);
      }
      if (dom >= 0 && idom[i] !== dom) {
        idom[i] = dom;
        changed = true;
      }
    }
  }

  // Retained sizes: children come before their dominator in postorder.
  const retained = new Float64Array(reached);
  let totalBytes = 0;
  for (let i = 0; i < reached; i++) {
    const self = nodes[order[i] * nodeFieldCount + selfOffset];
    retained[i] += self;
    totalBytes += self;
    if (i !== rootPost && idom[i] >= 0) retained[idom[i]] += retained[i];
  }

  const groupOf = (n: number): string => {
    const type = nodeTypes[nodes[n * nodeFieldCount + typeOffset]];
    const name = strings[nodes[n * nodeFieldCount + nameOffset]];
    if (type === 'object' || type === 'native') return name.split(' ')[0] || '(object)';
    if (type === 'hidden') return `(system) ${name.replace(/^system \/ /, '')}`;
    return `(${type})`;
  };

  // Groups: self size of each, and retained size of its outermost members in the dominator tree.
  const groups = new Map<string, HeapGroup>();
  const groupIds = new Int32Array(reached);
  const names: string[] = [];
  const idOf = new Map<string, number>();
  for (let i = 0; i < reached; i++) {
    const name = groupOf(order[i]);
    let id = idOf.get(name);
    if (id === undefined) {
      id = names.length;
      names.push(name);
      idOf.set(name, id);
      groups.set(name, { name, count: 0, selfBytes: 0, retainedBytes: 0 });
    }
    groupIds[i] = id;
    const group = groups.get(name)!;
    group.count++;
    group.selfBytes += nodes[order[i] * nodeFieldCount + selfOffset];
  }
  // Walk the dominator tree from the root, counting the open members of each group.
  const childStart = new Int32Array(reached + 1);
  for (let i = 0; i < reached; i++) if (i !== rootPost && idom[i] >= 0) childStart[idom[i] + 1]++;
  for (let i = 0; i < reached; i++) childStart[i + 1] += childStart[i];
  const children = new Int32Array(childStart[reached]);
  const at = childStart.slice(0, reached);
  for (let i = 0; i < reached; i++) if (i !== rootPost && idom[i] >= 0) children[at[idom[i]]++] = i;
  const open = new Int32Array(names.length);
  const walk = new Int32Array(reached);
  const next = new Int32Array(reached);
  let depth = 0;
  walk[0] = rootPost;
  next[rootPost] = childStart[rootPost];
  open[groupIds[rootPost]]++;
  while (depth >= 0) {
    const i = walk[depth];
    if (next[i] < childStart[i + 1]) {
      const c = children[next[i]++];
      if (open[groupIds[c]] === 0) groups.get(names[groupIds[c]])!.retainedBytes += retained[c];
      open[groupIds[c]]++;
      next[c] = childStart[c];
      walk[++depth] = c;
    } else {
      open[groupIds[i]]--;
      depth--;
    }
  }

  // The single objects retaining the most (below the synthetic roots).
  const candidates: number[] = [];
  for (let i = 0; i < reached; i++) {
    const type = nodeTypes[nodes[order[i] * nodeFieldCount + typeOffset]];
    if (type !== 'synthetic' && i !== rootPost) candidates.push(i);
  }
  candidates.sort((a, b) => retained[b] - retained[a]);
  const retainers: HeapRetainer[] = [];
  for (const i of candidates) {
    if (retainers.length >= top) break;
    // Skip an object whose dominator is already listed with nearly the same size (a chain of one).
    const parent = idom[i];
    if (parent !== rootPost && retained[parent] - retained[i] < retained[i] * 0.05) continue;
    const n = order[i];
    const name = strings[nodes[n * nodeFieldCount + nameOffset]];
    const group = groupOf(n);
    let heldAs = '';
    const from = order[parent];
    for (let e = firstEdge[from]; e < firstEdge[from + 1]; e += edgeFieldCount) {
      if (target(e) !== n) continue;
      const edgeType = edgeTypes[edges[e + edgeTypeOffset]];
      const label = edges[e + edgeNameOffset];
      heldAs = edgeType === 'element' || edgeType === 'hidden' ? `[${label}]` : `${strings[label] ?? label}`;
      break;
    }
    const owner = groupOf(from);
    retainers.push({
      what: group === name || !name ? group : `${group} ${name.slice(0, 40).replace(/\s+/g, ' ')}`,
      heldAs: `${owner}.${heldAs}`,
      retainedBytes: retained[i],
    });
  }

  const sorted = [...groups.values()].sort((a, b) => b.retainedBytes - a.retainedBytes);
  return { totalBytes, nodes: count, groups: sorted.slice(0, top), retainers };
}

const mb = (bytes: number): string => (bytes / 1048576).toFixed(1);

/** The summary as text lines, for a bench's output. */
export function heapSummaryLines(summary: HeapSummary): string[] {
  const lines = [
    `heap snapshot: ${mb(summary.totalBytes)} MB in ${summary.nodes} objects`,
    'by constructor (retained MB, self MB, count):',
  ];
  for (const g of summary.groups)
    lines.push(
      `  ${mb(g.retainedBytes).padStart(7)} ${mb(g.selfBytes).padStart(7)} ${String(g.count).padStart(8)}  ${g.name}`,
    );
  lines.push('largest single retainers (retained MB, object, held as):');
  for (const r of summary.retainers)
    lines.push(`  ${mb(r.retainedBytes).padStart(7)}  ${r.what}  <- ${r.heldAs}`);
  return lines;
}
