import { LiteralTable } from './literal-table';
import type { Pattern } from './pattern';

export interface PatternEntry {
  /** Index of the technology in Fingerprints.technologies. */
  readonly tech: number;
  readonly pattern: Pattern;
}

/**
 * The patterns of one kind with their literal prefilter: one scan of the text tells which patterns
 * can match at all (one literal of each set a pattern requires is there), and only those run their
 * regex. Sets that read the same texts share a literal
 * table, so the text is scanned once for all of them (`candidatesIn`).
 */
export class PatternSet {
  /** Ids (in the table) of the literals this set uses, and for each the entries that need it. */
  private readonly literalIds: Int32Array;
  private readonly byLiteral: number[][];
  private readonly always: number[];
  /**
   * Per entry, the further literal sets its pattern requires (table ids, one array per set), null
   * for none: an entry one of whose literals is found is kept only when each set has one found too.
   */
  private readonly further: (Int32Array[] | null)[];

  constructor(
    readonly entries: readonly PatternEntry[],
    readonly table: LiteralTable = new LiteralTable(),
  ) {
    const local = new Map<number, number>();
    const ids: number[] = [];
    const byLiteral: number[][] = [];
    const always: number[] = [];
    const further: (Int32Array[] | null)[] = [];
    entries.forEach((entry, index) => {
      const literals = entry.pattern.literals;
      further.push(null);
      if (!literals) {
        always.push(index);
        return;
      }
      const sets = entry.pattern.alsoRequired;
      if (sets.length)
        further[index] = sets.map((set) => Int32Array.from(set, (literal) => table.id(literal)));
      for (const literal of literals) {
        const id = table.id(literal);
        let slot = local.get(id);
        if (slot === undefined) {
          slot = ids.length;
          local.set(id, slot);
          ids.push(id);
          byLiteral.push([]);
        }
        byLiteral[slot].push(index);
      }
    });
    this.literalIds = Int32Array.from(ids);
    this.byLiteral = byLiteral;
    this.always = always;
    this.further = further;
  }

  get literalCount(): number {
    return this.byLiteral.length;
  }

  /** Indices (ascending) of the entries that may match one of the texts. */
  candidates(texts: readonly string[]): number[] {
    if (this.entries.length === 0) return [];
    return this.candidatesIn([this.table.scan(texts)]);
  }

  /** Like `candidates`, from scans of this set's table already made (a literal found in any counts). */
  candidatesIn(scans: readonly Uint8Array[]): number[] {
    if (this.entries.length === 0) return [];
    const { literalIds, byLiteral } = this;
    let chosen: Uint8Array | null = null;
    // One scan (the usual case) is read without the inner loop over scans.
    const only = scans.length === 1 ? scans[0] : null;
    for (let slot = 0; slot < literalIds.length; slot++) {
      const id = literalIds[slot];
      if (only !== null) {
        if (only[id] === 0) continue;
      } else if (!scans.some((found) => found[id] !== 0)) continue;
      chosen ??= new Uint8Array(this.entries.length);
      for (const index of byLiteral[slot]) chosen[index] = 1;
    }
    if (!chosen) return this.always;
    for (const index of this.always) chosen[index] = 1;
    const out: number[] = [];
    for (let index = 0; index < chosen.length; index++)
      if (chosen[index] && this.hasFurther(index, scans)) out.push(index);
    return out;
  }

  /** Whether each further literal set of an entry has a literal found in one of the scans. */
  private hasFurther(index: number, scans: readonly Uint8Array[]): boolean {
    const sets = this.further[index];
    if (sets === null) return true;
    for (const ids of sets) {
      let any = false;
      for (let k = 0; k < ids.length && !any; k++) {
        const id = ids[k];
        for (const found of scans) {
          if (found[id] !== 0) {
            any = true;
            break;
          }
        }
      }
      if (!any) return false;
    }
    return true;
  }
}
