/**
 * One-pass, case-insensitive multi-literal scan (Aho-Corasick compiled to a full DFA).
 * Built once at compile time; scanning a text costs one table lookup per character, whatever the
 * number of literals, which is what makes prefiltering thousands of patterns cheap.
 *
 * The build is on the start-up path (fingerprint compile), so it avoids per-state JS objects: the trie
 * comes from the sorted literals (a new state per character past the common prefix with the previous
 * literal), so its exact size is known before the transition table is allocated, and the output lists
 * are flat typed arrays filled in breadth-first order.
 */
export class LiteralScanner {
  /** Character code → alphabet class (0 = a character no literal contains). Case is folded here. */
  private readonly classOf: Uint16Array;
  private readonly width: number;
  /** Transitions, state-major; 16-bit when the states fit (half the memory, better cache use). */
  private readonly delta: Int32Array | Uint16Array;
  /** For each state, the start of its output list in `outputs` (outputStart[s]..outputStart[s+1]). */
  private readonly outputStart: Int32Array;
  private readonly outputs: Int32Array;

  constructor(readonly literals: readonly string[]) {
    const classOf = new Uint16Array(65536);
    const alphabet: number[] = [];
    let width = 1;
    for (const literal of literals) {
      for (let i = 0; i < literal.length; i++) {
        const lower = literal.charCodeAt(i);
        if (classOf[lower] === 0) {
          classOf[lower] = width++;
          alphabet.push(lower);
        }
      }
    }
    // The upper-case form of every alphabet character shares its class (literals are lowercase).
    for (const code of alphabet) {
      const upper = String.fromCharCode(code).toUpperCase();
      if (upper.length === 1 && classOf[upper.charCodeAt(0)] === 0)
        classOf[upper.charCodeAt(0)] = classOf[code];
    }

    // Sorted, each literal shares its trie path with the previous one up to their common prefix.
    const order = literals.map((_, id) => id).sort((a, b) => (literals[a] < literals[b] ? -1 : 1));
    const shared = new Int32Array(order.length);
    let states = 1;
    for (let k = 0; k < order.length; k++) {
      const literal = literals[order[k]];
      let common = 0;
      if (k > 0) {
        const previous = literals[order[k - 1]];
        const max = Math.min(previous.length, literal.length);
        while (common < max && previous.charCodeAt(common) === literal.charCodeAt(common)) common++;
      }
      shared[k] = common;
      states += literal.length - common;
    }

    const delta = new Int32Array(states * width).fill(-1);
    /** Literal id ending at each state (literals are distinct: at most one per state), -1 for none. */
    const own = new Int32Array(states).fill(-1);
    const path: number[] = [0];
    let next = 1;
    for (let k = 0; k < order.length; k++) {
      const literal = literals[order[k]];
      let state = path[shared[k]];
      for (let i = shared[k]; i < literal.length; i++) {
        const slot = state * width + classOf[literal.charCodeAt(i)];
        if (delta[slot] === -1) delta[slot] = next++;
        state = delta[slot];
        path[i + 1] = state;
      }
      own[state] = order[k];
    }

    // Breadth-first failure links folded into the table, so every state has an edge for every class;
    // output counts follow (a state outputs its own literal and those of its failure state).
    const fail = new Int32Array(states);
    const queue = new Int32Array(states);
    const count = new Int32Array(states);
    let tail = 0;
    for (let cls = 0; cls < width; cls++) {
      if (delta[cls] === -1) delta[cls] = 0;
      else queue[tail++] = delta[cls];
    }
    for (let head = 0; head < tail; head++) {
      const state = queue[head];
      const base = state * width;
      const failBase = fail[state] * width;
      count[state] = (own[state] >= 0 ? 1 : 0) + count[fail[state]];
      for (let cls = 0; cls < width; cls++) {
        const to = delta[base + cls];
        if (to === -1) {
          delta[base + cls] = delta[failBase + cls];
        } else {
          fail[to] = delta[failBase + cls];
          queue[tail++] = to;
        }
      }
    }

    const outputStart = new Int32Array(states + 1);
    let total = 0;
    for (let s = 0; s < states; s++) {
      outputStart[s] = total;
      total += count[s];
    }
    outputStart[states] = total;
    const outputs = new Int32Array(total);
    // A failure state is shallower, hence earlier in breadth-first order: its list is complete.
    for (let head = 0; head < tail; head++) {
      const state = queue[head];
      let at = outputStart[state];
      if (own[state] >= 0) outputs[at++] = own[state];
      const f = fail[state];
      outputs.copyWithin(at, outputStart[f], outputStart[f + 1]);
    }

    this.classOf = classOf;
    this.width = width;
    this.delta = states <= 0xffff ? new Uint16Array(delta) : delta;
    this.outputStart = outputStart;
    this.outputs = outputs;
  }

  /** Sets found[id] = 1 for every literal that occurs in text; returns how many new ones it found. */
  scan(text: string, found: Uint8Array): number {
    const { classOf, width, delta, outputStart, outputs } = this;
    let state = 0;
    let count = 0;
    for (let i = 0; i < text.length; i++) {
      state = delta[state * width + classOf[text.charCodeAt(i)]];
      const from = outputStart[state];
      const to = outputStart[state + 1];
      for (let k = from; k < to; k++) {
        const id = outputs[k];
        if (found[id] === 0) {
          found[id] = 1;
          count++;
        }
      }
    }
    return count;
  }
}
