import type { LiteralScan, LiteralTable } from './literal-table';

/** Joins texts scanned as one: no fingerprint literal holds it (checked per table). */
const TEXT_SEPARATOR = '\u0000';

/** Per table, whether none of its literals holds TEXT_SEPARATOR (worked out on its first join). */
const separable = new WeakMap<LiteralTable, boolean>();

/**
 * One scan of several texts (a page's script URLs; its address, text and styles), joined by a
 * character no literal of the table holds: it finds exactly the literals one scan per text finds
 * (a literal holding no separator cannot occur across one), and each scan has a fixed cost (the
 * text copied into the scanner's memory, its found-marks copied in and out) that a page's few
 * short texts would otherwise pay several times over. A table with a literal holding the
 * separator scans each text alone.
 */
export function scanAsOne(table: LiteralTable, texts: readonly string[]): LiteralScan {
  if (texts.length < 2) return table.scanFound(texts);
  let joinable = separable.get(table);
  if (joinable === undefined) {
    joinable = !table.build().literals.some((literal) => literal.includes(TEXT_SEPARATOR));
    separable.set(table, joinable);
  }
  return table.scanFound(joinable ? [texts.join(TEXT_SEPARATOR)] : texts);
}
