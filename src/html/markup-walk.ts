import { NAME_SLOTS, nameSlot } from './known-names';
import { TOKEN, tokenKind, tokenSlot, type MarkupTokens } from './light-document';

// htmlparser2 10.1.0's Parser rules (Parser.js), so that a walk of the tokens nests elements as its
// Parser did over the same markup.
const formTags = new Set(['input', 'option', 'optgroup', 'select', 'button', 'datalist', 'textarea']);
const pTag = new Set(['p']);
const tableSectionTags = new Set(['thead', 'tbody']);
const ddtTags = new Set(['dd', 'dt']);
const rtpTags = new Set(['rt', 'rp']);
const openImpliesClose = new Map<string, ReadonlySet<string>>([
  ['tr', new Set(['tr', 'th', 'td'])],
  ['th', new Set(['th'])],
  ['td', new Set(['thead', 'th', 'td'])],
  ['body', new Set(['head', 'link', 'script'])],
  ['li', new Set(['li'])],
  ['p', pTag],
  ['h1', pTag],
  ['h2', pTag],
  ['h3', pTag],
  ['h4', pTag],
  ['h5', pTag],
  ['h6', pTag],
  ['select', formTags],
  ['input', formTags],
  ['output', formTags],
  ['button', formTags],
  ['datalist', formTags],
  ['textarea', formTags],
  ['option', new Set(['option'])],
  ['optgroup', new Set(['optgroup', 'option'])],
  ['dd', ddtTags],
  ['dt', ddtTags],
  ['address', pTag],
  ['article', pTag],
  ['aside', pTag],
  ['blockquote', pTag],
  ['details', pTag],
  ['div', pTag],
  ['dl', pTag],
  ['fieldset', pTag],
  ['figcaption', pTag],
  ['figure', pTag],
  ['footer', pTag],
  ['form', pTag],
  ['header', pTag],
  ['hr', pTag],
  ['main', pTag],
  ['nav', pTag],
  ['ol', pTag],
  ['pre', pTag],
  ['section', pTag],
  ['table', pTag],
  ['ul', pTag],
  ['rt', rtpTags],
  ['rp', rtpTags],
  ['tbody', tableSectionTags],
  ['tfoot', tableSectionTags],
]);
const voidElements = [
  'area',
  'base',
  'basefont',
  'br',
  'col',
  'command',
  'embed',
  'frame',
  'hr',
  'img',
  'input',
  'isindex',
  'keygen',
  'link',
  'meta',
  'param',
  'source',
  'track',
  'wbr',
];
const foreignContextElements = ['math', 'svg'];
const htmlIntegrationElements = [
  'mi',
  'mo',
  'mn',
  'ms',
  'mtext',
  'annotation-xml',
  'foreignobject',
  'desc',
  'title',
];

/**
 * The names a start tag may close implicitly, a bit each: a rule holds the bits of the names its
 * start tag closes, and the walk keeps each open element's bit beside its name, so that the check of
 * the innermost element is an AND instead of a look-up of its name in a set.
 */
const IMPLICITLY_CLOSED = [...new Set([...openImpliesClose.values()].flatMap((names) => [...names]))];
const closedBit = (name: string): number => {
  const at = IMPLICITLY_CLOSED.indexOf(name);
  return at < 0 ? 0 : 1 << at;
};

/** What htmlparser2 does with an element, by tag name: one look-up per token instead of five. */
interface ElementRule {
  readonly isVoid: boolean;
  /** math, svg: the foreign context (self-closing tags close) starts. */
  readonly foreign: boolean;
  /** An HTML integration point inside foreign content: the HTML context comes back. */
  readonly integration: boolean;
  /** The bits (IMPLICITLY_CLOSED) of the open elements its start tag closes while they are the innermost. */
  readonly closes: number;
  /** Its own bit in IMPLICITLY_CLOSED, 0 when no start tag closes it. */
  readonly closedBit: number;
}

const ORDINARY: ElementRule = { isVoid: false, foreign: false, integration: false, closes: 0, closedBit: 0 };
/** Only the names with a rule (any other, custom elements included, is ORDINARY): a fixed table. */
const RULES = new Map<string, ElementRule>();
for (const name of [
  ...openImpliesClose.keys(),
  ...voidElements,
  ...foreignContextElements,
  ...htmlIntegrationElements,
  ...IMPLICITLY_CLOSED,
]) {
  RULES.set(name, {
    isVoid: voidElements.includes(name),
    foreign: foreignContextElements.includes(name),
    integration: htmlIntegrationElements.includes(name),
    closes: [...(openImpliesClose.get(name) ?? [])].reduce((bits, closed) => bits | closedBit(closed), 0),
    closedBit: closedBit(name),
  });
}

/** A name's rule and a reader's own flags for it: what the walk and its reader need, in one look-up. */
interface TagEntry {
  readonly rule: ElementRule;
  readonly flags: number;
}

/** The entries of a reader's table by name, and the same by known-names slot (ORDINARY_ENTRY where none). */
interface TagTable {
  readonly byName: ReadonlyMap<string, TagEntry>;
  readonly bySlot: readonly TagEntry[];
}

const ORDINARY_ENTRY: TagEntry = { rule: ORDINARY, flags: 0 };
const NO_READER_FLAGS: ReadonlyMap<string, number> = new Map();
/** RULES merged with each reader's table of flags, built once per table. */
const MERGED_TABLES = new WeakMap<ReadonlyMap<string, number>, TagTable>();

function mergedTable(readerFlags: ReadonlyMap<string, number>): TagTable {
  let table = MERGED_TABLES.get(readerFlags);
  if (table === undefined) {
    const byName = new Map<string, TagEntry>();
    for (const [name, rule] of RULES) byName.set(name, { rule, flags: readerFlags.get(name) ?? 0 });
    for (const [name, flags] of readerFlags)
      if (!byName.has(name)) byName.set(name, { rule: ORDINARY, flags });
    // Every slot holds an entry (the array stays packed, its reads monomorphic); a name the walk
    // knows that the known-names table does not comes with slot -1 and is found by name.
    const bySlot = new Array<TagEntry>(NAME_SLOTS).fill(ORDINARY_ENTRY);
    for (const [name, entry] of byName) {
      const slot = nameSlot(name, 0, name.length);
      if (slot >= 0) bySlot[slot] = entry;
    }
    table = { byName, bySlot };
    MERGED_TABLES.set(readerFlags, table);
  }
  return table;
}

/** An element htmlparser2 opens without a start tag of its own (<p> for a stray </p>, <br> for </br>). */
export const IMPLIED = -1;

/**
 * A walk of one reading's tokens with the elements nested as htmlparser2's Parser (HTML mode) would
 * have nested them over the same markup: implied ends, void elements, self-closing tags in svg/math
 * only, `</p>` and `</br>` without a start, and every element still open at the end closed. A reader
 * extends it and hears starts, ends and text ranges; it reads attributes and text from the tokens
 * and the html itself, only where it needs them (no attributes object, no text copy per event).
 */
export abstract class MarkupWalk {
  /** Names of the open elements, innermost last (htmlparser2 keeps the innermost first). */
  protected readonly stack: string[] = [];
  private readonly table: TagTable;

  /**
   * `readerFlags`: the reader's own number for each tag name it tells apart (any other name is 0),
   * handed to onOpen with the element: found in the look-up the walk makes for the name's rule.
   */
  protected constructor(
    protected readonly html: string,
    protected readonly tokens: MarkupTokens,
    readerFlags: ReadonlyMap<string, number> = NO_READER_FLAGS,
  ) {
    this.table = mergedTable(readerFlags);
  }

  /**
   * An element starts; `token` is its START token (its raw attributes: tokens.attrs[token]) or
   * IMPLIED, `flags` the reader's flags for its name. The stack holds its ancestors (it is not on
   * it yet).
   */
  protected abstract onOpen(name: string, token: number, flags: number): void;

  /**
   * An element ends (every start has its end, and the ends come in the reverse order of the
   * starts); it is off the stack already.
   */
  protected abstract onClose(name: string): void;

  /**
   * Text html[from, to) as written: TEXT (markup text, entities to decode), RAW (script, style,
   * textarea, xmp bodies) or RCDATA (a title's body: entities decoded, no markup).
   */
  protected abstract onText(kind: number, from: number, to: number): void;

  protected walk(): void {
    const stack = this.stack;
    const { byName, bySlot } = this.table;
    const entryOf = (entry: number, name: string): TagEntry => {
      const slot = tokenSlot(entry);
      return slot >= 0 ? bySlot[slot] : (byName.get(name) ?? ORDINARY_ENTRY);
    };
    const foreignContext: boolean[] = [false];
    /** The closedBit of each open element, in step with the stack. */
    const openBits: number[] = [];
    const closeInnermost = (): void => {
      openBits.pop();
      this.onClose(stack.pop() as string);
    };
    const { kinds, names, from, to } = this.tokens;
    // The length and each token's entry read once: every read of a typed array checks its buffer,
    // and instruction counts showed the repeated reads.
    const count = kinds.length;
    for (let k = 0; k < count; k++) {
      const packed = kinds[k];
      const kind = tokenKind(packed);
      if (kind === TOKEN.START) {
        const name = names[k];
        const entry = entryOf(packed, name);
        const rule = entry.rule;
        const closes = rule.closes;
        if (closes !== 0) {
          while (openBits.length > 0 && (closes & openBits[openBits.length - 1]) !== 0) closeInnermost();
        }
        this.onOpen(name, k, entry.flags);
        if (rule.isVoid) {
          this.onClose(name);
          continue;
        }
        if (rule.foreign) foreignContext.push(true);
        else if (rule.integration) foreignContext.push(false);
        // Self-closing counts in foreign content only (the element itself may have started it).
        if (from[k] === 1 && foreignContext[foreignContext.length - 1]) this.onClose(name);
        else {
          stack.push(name);
          openBits.push(rule.closedBit);
        }
      } else if (kind === TOKEN.END) {
        const name = names[k];
        const rule = entryOf(packed, name).rule;
        if (rule.foreign || rule.integration) foreignContext.pop();
        if (!rule.isVoid) {
          // Most end tags close the innermost element: no search of the stack for those.
          const at = stack[stack.length - 1] === name ? stack.length - 1 : stack.lastIndexOf(name);
          if (at !== -1) {
            while (stack.length > at) closeInnermost();
          } else if (name === 'p') {
            // <p> implies the close of an open <p> only, and none is open here.
            this.onOpen('p', IMPLIED, (byName.get('p') as TagEntry).flags);
            this.onClose('p');
          }
        } else if (name === 'br') {
          this.onOpen('br', IMPLIED, (byName.get('br') as TagEntry).flags);
          this.onClose('br');
        }
      } else {
        this.onText(kind, from[k], to[k]);
      }
    }
    while (stack.length > 0) closeInnermost();
  }
}
