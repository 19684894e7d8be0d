import { LiteralScanner } from './literal-scanner';

/**
 * What one scan found: found[id] = 1 for each literal found, and their ids (ascending) as a list, so
 * a set looks up the few literals found rather than walking all of its own.
 */
export interface LiteralScan {
  readonly found: Uint8Array;
  readonly ids: Int32Array;
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

  /** found[id] = 1 for every literal occurring in one of the texts, and their ids (ascending). */
  scanFound(texts: readonly string[]): LiteralScan {
    const scanner = this.build();
    const found = new Uint8Array(this.list.length);
    let ids: Int32Array | null = null;
    for (const text of texts) {
      if (text.length === 0) continue;
      const fresh = scanner.scanIds(text, found);
      if (ids === null) ids = fresh;
      else if (fresh.length > 0) {
        const joined: Int32Array = new Int32Array(ids.length + fresh.length);
        joined.set(ids);
        joined.set(fresh, ids.length);
        ids = joined;
      }
    }
    return { found, ids: ids === null ? new Int32Array(0) : ids.sort() };
  }
}
