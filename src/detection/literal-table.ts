import { LiteralScanner } from './literal-scanner';

/**
 * What one scan found: the ids of the literals found, ascending, so a set looks up the few literals
 * found rather than walking all of its own, and `has` tells whether one was found. No array of all
 * the table's literals is made per scan (see CompiledLiteralScan.scan).
 */
export class LiteralScan {
  constructor(readonly ids: Int32Array) {}

  /** Whether literal `id` was found (a binary search of the ids). */
  has(id: number): boolean {
    const { ids } = this;
    let low = 0;
    let high = ids.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (ids[middle] < id) low = middle + 1;
      else high = middle;
    }
    return low < ids.length && ids[low] === id;
  }
}

/**
 * Literals of several pattern sets that scan the same texts, under one automaton: the page markup is
 * read by the html patterns, the DOM selector prefilter and the browser-only hints, and a single pass
 * over it serves all three instead of one pass each.
 */
export class LiteralTable {
  private readonly ids = new Map<string, number>();
  private readonly list: string[] = [];
  private scanner: LiteralScanner | null = null;

  /** The id of a literal (lowercase), registering it; only before the table is built. */
  id(literal: string): number {
    let id = this.ids.get(literal);
    if (id === undefined) {
      if (this.scanner) throw new Error('literal table already built');
      id = this.list.length;
      this.ids.set(literal, id);
      this.list.push(literal);
    }
    return id;
  }

  get size(): number {
    return this.list.length;
  }

  /** Builds the automaton (done at compile time; later calls are free). */
  build(): LiteralScanner {
    this.scanner ??= new LiteralScanner(this.list);
    return this.scanner;
  }

  /** The literals occurring in one of the texts. */
  scanFound(texts: readonly string[]): LiteralScan {
    return new LiteralScan(this.build().scanIds(texts).sort());
  }
}
