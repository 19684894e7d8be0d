import { NAME_SLOTS, nameSlot } from './known-names';

/**
 * What the light tree does with an element, by tag name (the browser's rules it follows, see
 * light-document.ts): one look-up per tag instead of one per set. Only the names with a rule are in
 * the table; any other name, custom elements included, is ORDINARY_TAG.
 */
export interface TagRule {
  /** No content and no end tag. */
  readonly isVoid: boolean;
  /** The tree keeps its body as text, up to its own end tag. */
  readonly rawText: boolean;
  /** Its text is no part of the page's visible text. */
  readonly hidden: boolean;
  /** Its start tag closes an open p (unless a button or table is nearer). */
  readonly closesP: boolean;
  /** svg or math: foreign content starts (self-closing tags close). */
  readonly foreign: boolean;
  /** [elements its start tag closes when open, elements that stop the search], if any. */
  readonly impliedEnd: readonly [readonly string[], readonly string[]] | undefined;
  /** The known-name slots (known-names.ts) of impliedEnd[0], the elements its start tag closes. */
  readonly impliedEndSlots: readonly number[] | undefined;
  /** htmlparser2 reads as markup the body the tree keeps as text. */
  readonly rawForTreeOnly: boolean;
  /** A raw-text element of htmlparser2's tokenizer. */
  readonly rawForTokens: boolean;
}

// prettier-ignore
const VOID = [
  'area', 'base', 'br', 'col', 'embed', 'hr', 'img', 'input', 'link', 'meta', 'param', 'source',
  'track', 'wbr', 'keygen',
];
// prettier-ignore
const RAW_TEXT = [
  'script', 'style', 'textarea', 'title', 'xmp', 'iframe', 'noembed', 'noframes', 'noscript',
  'plaintext',
];
// prettier-ignore
const HIDDEN_TEXT = [
  'script', 'style', 'noscript', 'template', 'title', 'iframe', 'noembed', 'noframes', 'xmp',
];
// prettier-ignore
const CLOSES_P = [
  'address', 'article', 'aside', 'blockquote', 'details', 'div', 'dl', 'fieldset', 'figcaption',
  'figure', 'footer', 'form', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'header', 'hgroup', 'hr', 'main',
  'menu', 'nav', 'ol', 'p', 'pre', 'section', 'table', 'ul',
];
const TABLE_SECTIONS: [string[], string[]] = [['tbody', 'thead', 'tfoot', 'tr', 'td', 'th'], ['table']];
const IMPLIED_END = new Map<string, [string[], string[]]>([
  ['li', [['li'], ['ul', 'ol']]],
  ['dt', [['dt', 'dd'], ['dl']]],
  ['dd', [['dt', 'dd'], ['dl']]],
  ['option', [['option'], ['select', 'datalist']]],
  ['optgroup', [['option', 'optgroup'], ['select']]],
  [
    'tr',
    [
      ['tr', 'td', 'th'],
      ['table', 'tbody', 'thead', 'tfoot'],
    ],
  ],
  [
    'td',
    [
      ['td', 'th'],
      ['tr', 'table'],
    ],
  ],
  [
    'th',
    [
      ['td', 'th'],
      ['tr', 'table'],
    ],
  ],
  ['tbody', TABLE_SECTIONS],
  ['thead', TABLE_SECTIONS],
  ['tfoot', TABLE_SECTIONS],
  ['a', [['a'], ['table', 'td', 'th', 'button']]],
]);
const FOREIGN = ['svg', 'math'];
/** Elements whose body the light tree keeps as text but htmlparser2 reads as markup. */
const RAW_FOR_TREE_ONLY = ['iframe', 'noembed', 'noframes', 'noscript', 'plaintext'];
/** Raw-text elements of htmlparser2's tokenizer. */
const RAW_FOR_TOKENS = ['script', 'style', 'title', 'textarea', 'xmp'];

function slotOf(name: string): number {
  const slot = nameSlot(name, 0, name.length);
  if (slot < 0) throw new Error(`${name} is not in the table of known names`);
  return slot;
}

function ruleOf(tag: string): TagRule {
  const impliedEnd = IMPLIED_END.get(tag);
  return {
    isVoid: VOID.includes(tag),
    rawText: RAW_TEXT.includes(tag),
    hidden: HIDDEN_TEXT.includes(tag),
    closesP: CLOSES_P.includes(tag),
    foreign: FOREIGN.includes(tag),
    impliedEnd,
    impliedEndSlots: impliedEnd?.[0].map(slotOf),
    rawForTreeOnly: RAW_FOR_TREE_ONLY.includes(tag),
    rawForTokens: RAW_FOR_TOKENS.includes(tag),
  };
}

export const ORDINARY_TAG: TagRule = ruleOf('');

const RULES = new Map<string, TagRule>();
for (const tag of [VOID, RAW_TEXT, HIDDEN_TEXT, CLOSES_P, [...IMPLIED_END.keys()], FOREIGN].flat())
  RULES.set(tag, ruleOf(tag));

export function tagRule(tag: string): TagRule {
  return RULES.get(tag) ?? ORDINARY_TAG;
}

/** The rules by known-name slot: an array read instead of a map for the names of the table. */
const RULES_BY_SLOT: TagRule[] = new Array<TagRule>(NAME_SLOTS).fill(ORDINARY_TAG);
for (const [tag, rule] of RULES) {
  const slot = nameSlot(tag, 0, tag.length);
  if (slot >= 0) RULES_BY_SLOT[slot] = rule;
}

/** tagRule(tag), given the tag's known-name slot (-1 when it is not a known name). */
export function tagRuleAt(slot: number, tag: string): TagRule {
  return slot >= 0 ? RULES_BY_SLOT[slot] : tagRule(tag);
}
