import { LiteralTable, type LiteralScan } from './literal-table';
import type { Pattern } from './pattern';
import { isTableLiteral } from './regex-source';
import { sortIndices } from './sort-indices';

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
interface EntriesById {
  readonly start: Int32Array;
  readonly entries: Int32Array;
}

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
  /**
   * Per entry with further sets, the strings of each set too short for the table (null for a set
   * without any), looked for in the texts themselves; null for an entry without any.
   */
  private readonly furtherInText: ((readonly string[] | null)[] | null)[];
  private byId: EntriesById | null = null;
  private marks: Uint8Array | null = null;

  constructor(
    readonly entries: readonly PatternEntry[],
    readonly table: LiteralTable = new LiteralTable(),
  ) {
    const local = new Map<number, number>();
    const ids: number[] = [];
    const byLiteral: number[][] = [];
    const always: number[] = [];
    const further: (Int32Array[] | null)[] = [];
    const furtherInText: ((readonly string[] | null)[] | null)[] = [];
    entries.forEach((entry, index) => {
      const literals = entry.pattern.literals;
      further.push(null);
      furtherInText.push(null);
      if (!literals) {
        always.push(index);
        return;
      }
      const sets = entry.pattern.alsoRequired;
      if (sets.length) {
        further[index] = sets.map((set) =>
          Int32Array.from(set.filter(isTableLiteral), (literal) => table.id(literal)),
        );
        if (sets.some((set) => !set.every(isTableLiteral)))
          furtherInText[index] = sets.map((set) =>
            set.every(isTableLiteral) ? null : set.filter((literal) => !isTableLiteral(literal)),
          );
      }
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
    this.furtherInText = furtherInText;
  }

  get literalCount(): number {
    return this.byLiteral.length;
  }

  /** Indices (ascending) of the entries that may match one of the texts. */
  candidates(texts: readonly string[]): number[] {
    if (this.entries.length === 0) return [];
    return this.candidatesIn([this.table.scanFound(texts)], texts);
  }

  /**
   * Like `candidates`, from scans of this set's table already made (a literal found in any counts).
   * It starts from the literals found (a few dozen) rather than from all of the set's (thousands).
   * `texts`, the texts the patterns will read, are searched for the strings the table cannot hold;
   * without them, such a string counts as found.
   */
  candidatesIn(scans: readonly LiteralScan[], texts?: readonly string[]): number[] {
    if (this.entries.length === 0) return [];
    const { start, entries } = this.entriesById();
    // Marks are set while collecting and cleared before returning: a call runs to its end without
    // yielding, so one array per set serves every call.
    const marks = (this.marks ??= new Uint8Array(this.entries.length));
    const out: number[] = [];
    for (const scan of scans) {
      const ids = scan.ids;
      for (let k = 0; k < ids.length; k++) {
        const id = ids[k];
        for (let j = start[id], to = start[id + 1]; j < to; j++) {
          const index = entries[j];
          if (marks[index] !== 0) continue;
          marks[index] = 1;
          out.push(index);
        }
      }
    }
    if (out.length === 0) return this.always;
    for (const index of this.always) {
      if (marks[index] !== 0) continue;
      marks[index] = 1;
      out.push(index);
    }
    for (const index of out) marks[index] = 0;
    sortIndices(out);
    let kept = 0;
    for (const index of out) if (this.hasFurther(index, scans, texts)) out[kept++] = index;
    out.length = kept;
    return out;
  }

  /**
   * The entries needing each literal of the table, by table id: entries[start[id]..start[id + 1]),
   * none for the table's literals of other sets. Two flat arrays (made once the table is whole)
   * rather than a list per literal, so a look-up reads adjacent memory.
   */
  private entriesById(): EntriesById {
    const size = this.table.size;
    if (this.byId !== null && this.byId.start.length === size + 1) return this.byId;
    const start = new Int32Array(size + 1);
    this.literalIds.forEach((id, slot) => (start[id + 1] = this.byLiteral[slot].length));
    for (let id = 0; id < size; id++) start[id + 1] += start[id];
    const entries = new Int32Array(start[size]);
    this.literalIds.forEach((id, slot) => entries.set(this.byLiteral[slot], start[id]));
    return (this.byId = { start, entries });
  }

  /**
   * Whether each further literal set of an entry has a literal found in one of the scans, or a
   * string too short for the table in one of the texts.
   */
  private hasFurther(index: number, scans: readonly LiteralScan[], texts?: readonly string[]): boolean {
    const sets = this.further[index];
    if (sets === null) return true;
    const inText = this.furtherInText[index];
    for (let s = 0; s < sets.length; s++) {
      const ids = sets[s];
      let any = false;
      for (let k = 0; k < ids.length && !any; k++) {
        const id = ids[k];
        for (const scan of scans) {
          if (scan.has(id)) {
            any = true;
            break;
          }
        }
      }
      if (!any && inText !== null) any = holdsAny(texts, inText[s]);
      if (!any) return false;
    }
    return true;
  }
}

/** Whether one of the texts holds one of the strings; true when the texts are not known. */
function holdsAny(texts: readonly string[] | undefined, strings: readonly string[] | null): boolean {
  if (strings === null) return false;
  if (texts === undefined) return true;
  for (const text of texts) for (const string of strings) if (text.includes(string)) return true;
  return false;
}
