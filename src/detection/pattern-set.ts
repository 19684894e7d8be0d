import { LiteralScanner } from './literal-scanner';
import type { Pattern } from './pattern';

export interface PatternEntry {
  /** Index of the technology in Fingerprints.technologies. */
  readonly tech: number;
  readonly pattern: Pattern;
}

/**
 * The patterns of one kind with their literal prefilter: one scan of the text tells which patterns
 * can match at all, and only those run their regex.
 */
export class PatternSet {
  private readonly scanner: LiteralScanner;
  /** literal id → indices of the entries that need it. */
  private readonly byLiteral: number[][];
  private readonly always: number[];

  constructor(readonly entries: readonly PatternEntry[]) {
    const literalIds = new Map<string, number>();
    const byLiteral: number[][] = [];
    const always: number[] = [];
    entries.forEach((entry, index) => {
      const literals = entry.pattern.literals;
      if (!literals) {
        always.push(index);
        return;
      }
      for (const literal of literals) {
        let id = literalIds.get(literal);
        if (id === undefined) {
          id = byLiteral.length;
          literalIds.set(literal, id);
          byLiteral.push([]);
        }
        byLiteral[id].push(index);
      }
    });
    this.scanner = new LiteralScanner([...literalIds.keys()]);
    this.byLiteral = byLiteral;
    this.always = always;
  }

  get literalCount(): number {
    return this.byLiteral.length;
  }

  /** Indices (ascending) of the entries that may match one of the texts. */
  candidates(texts: readonly string[]): number[] {
    if (this.entries.length === 0) return [];
    const found = new Uint8Array(this.byLiteral.length);
    let hits = 0;
    for (const text of texts) hits += this.scanner.scan(text, found);
    if (hits === 0) return this.always;
    const chosen = new Uint8Array(this.entries.length);
    for (const index of this.always) chosen[index] = 1;
    for (let id = 0; id < found.length; id++) {
      if (found[id]) for (const index of this.byLiteral[id]) chosen[index] = 1;
    }
    const out: number[] = [];
    for (let index = 0; index < chosen.length; index++) if (chosen[index]) out.push(index);
    return out;
  }
}
