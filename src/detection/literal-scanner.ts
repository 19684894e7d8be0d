/**
 * One-pass, case-insensitive multi-literal scan (Aho-Corasick compiled to a full DFA).
 * Built once per pattern kind at compile time; scanning a text costs one table lookup per character,
 * whatever the number of literals, which is what makes prefiltering thousands of patterns cheap.
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
    let width = 1;
    for (const literal of literals) {
      for (let i = 0; i < literal.length; i++) {
        const lower = literal.charCodeAt(i);
        if (classOf[lower] === 0) {
          classOf[lower] = width++;
        }
      }
    }
    // The upper-case form of every alphabet character shares its class (literals are lowercase).
    for (let code = 0; code < 65536; code++) {
      const cls = classOf[code];
      if (cls === 0) continue;
      const upper = String.fromCharCode(code).toUpperCase();
      if (upper.length === 1 && classOf[upper.charCodeAt(0)] === 0) classOf[upper.charCodeAt(0)] = cls;
    }

    // Trie written straight into the transition table (-1: no edge yet), then breadth-first failure
    // links fold into it so every state has an edge for every class.
    let capacity = 1;
    for (const literal of literals) capacity += literal.length;
    let delta = new Int32Array(capacity * width).fill(-1);
    const terminal: number[][] = [[]];
    let states = 1;
    literals.forEach((literal, id) => {
      let state = 0;
      for (let i = 0; i < literal.length; i++) {
        const slot = state * width + classOf[literal.charCodeAt(i)];
        if (delta[slot] === -1) {
          delta[slot] = states++;
          terminal.push([]);
        }
        state = delta[slot];
      }
      terminal[state].push(id);
    });
    delta = delta.slice(0, states * width);

    const fail = new Int32Array(states);
    const outputsOf = terminal;
    const queue = new Int32Array(states);
    let tail = 0;
    for (let cls = 0; cls < width; cls++) {
      if (delta[cls] === -1) delta[cls] = 0;
      else queue[tail++] = delta[cls];
    }
    for (let head = 0; head < tail; head++) {
      const state = queue[head];
      const base = state * width;
      const failBase = fail[state] * width;
      if (outputsOf[fail[state]].length) outputsOf[state] = outputsOf[state].concat(outputsOf[fail[state]]);
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
      total += outputsOf[s].length;
    }
    outputStart[states] = total;
    const outputs = new Int32Array(total);
    for (let s = 0; s < states; s++) outputs.set(outputsOf[s], outputStart[s]);

    this.classOf = classOf;
    this.width = width;
    this.delta = states <= 0xffff ? Uint16Array.from(delta) : delta;
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
