import { isIdentChar, isSpace, longerLiteral } from './css-selector';

/**
 * The prefilter literals of a selector from one allocation-light pass, without building its parse
 * tree: start-up needs only these, and the tree (`parseSelectorList`) is built when a page first
 * gets past the prefilter. It accepts the common subset only (type, *, #id, .class, attribute tests,
 * combinators, lists; no escapes, no pseudo-classes), where it yields exactly what `selectorLiteral`
 * yields for each complex of the parsed list; for anything else it returns undefined and the caller
 * parses at once (which also reports, at load, the selectors the engine cannot read).
 *
 * Returns the distinct literals, null when some complex has none (the rule then always runs), or
 * undefined when the selector is outside the subset.
 */
export function scanSelectorLiterals(selector: string): string[] | null | undefined {
  const s = selector;
  const n = s.length;
  let i = 0;
  const code = (at: number): number => (at < n ? s.charCodeAt(at) : -1);
  const spaces = (): boolean => {
    const start = i;
    while (isSpace(code(i))) i++;
    return i > start;
  };
  /** A run of identifier characters ('' when none; undefined at an escape, which the subset excludes). */
  const ident = (): string | undefined => {
    const start = i;
    while (isIdentChar(code(i))) i++;
    return code(i) === 92 ? undefined : s.slice(start, i);
  };

  const literals: string[] = [];
  let everyComplexHasOne = true;
  for (;;) {
    spaces();
    let named = '';
    let written = '';
    // One complex: compounds joined by combinators.
    for (;;) {
      const start = i;
      let tag = '';
      // Per compound, selectorLiteral considers the tag and attribute names (in that order) as one kind,
      // and ids, then classes, then attribute values as the other: the first longest of each, in
      // that order, gives the same choice.
      let id = '';
      let cls = '';
      let attr = '';
      let value = '';
      if (code(i) === 42) i++;
      else if (isIdentChar(code(i))) {
        const name = ident();
        if (name === undefined) return undefined;
        tag = name.toLowerCase();
      }
      for (;;) {
        const c = code(i);
        if (c === 35 || c === 46) {
          // #id or .class
          i++;
          const name = ident();
          if (!name) return undefined;
          if (c === 35) id = longerLiteral(id, name);
          else cls = longerLiteral(cls, name);
        } else if (c === 91) {
          i++;
          spaces();
          const name = ident();
          if (!name) return undefined;
          attr = longerLiteral(attr, name.toLowerCase());
          spaces();
          let op = '';
          if (code(i) === 61) op = '=';
          else if (code(i + 1) === 61 && '~|^$*'.includes(s[i])) op = `${s[i]}=`;
          if (op) {
            i += op.length;
            spaces();
            const q = code(i);
            let text: string | undefined;
            if (q === 34 || q === 39) {
              const close = s.indexOf(s[i], i + 1);
              if (close < 0) return undefined;
              text = s.slice(i + 1, close);
              if (text.includes('\\')) return undefined;
              i = close + 1;
            } else {
              text = ident();
              if (!text) return undefined;
            }
            if (op !== '|=') value = longerLiteral(value, text);
            spaces();
            const flag = code(i);
            if ((flag === 105 || flag === 73 || flag === 115 || flag === 83) && !isIdentChar(code(i + 1))) {
              i++;
              spaces();
            }
          }
          if (code(i) !== 93) return undefined;
          i++;
        } else {
          break;
        }
      }
      if (i === start) return undefined;
      named = longerLiteral(longerLiteral(named, tag), attr);
      written = longerLiteral(longerLiteral(longerLiteral(written, id), cls), value);
      const hadSpace = spaces();
      const c = code(i);
      if (c === 62 || c === 43 || c === 126) {
        i++;
        spaces();
      } else if (!(hadSpace && c !== -1 && c !== 44)) {
        break;
      }
    }
    const best = written.length >= 3 ? written : named;
    if (best.length >= 3) {
      const literal = best.toLowerCase();
      if (!literals.includes(literal)) literals.push(literal);
    } else {
      everyComplexHasOne = false;
    }
    if (code(i) === 44) i++;
    else if (i >= n) break;
    else return undefined;
  }
  return everyComplexHasOne ? literals : null;
}
