import { complexMatches } from '../../../src/detection/css-selector';
import { DomMatcher, MAX_DOM_NODES } from '../../../src/detection/dom-matcher';
import { DomRule } from '../../../src/detection/dom-rule';
import { compilePattern } from '../../../src/detection/pattern';
import { getAttribute, parseHtml, type LightDocument } from '../../../src/html';
import { seededRandom } from '../../helpers/seeded-random';

function rule(selector: string): DomRule {
  return new DomRule(0, selector, undefined, null, null, [], null);
}

/** The reference: every element tried against every complex, in document order, capped as the matcher caps. */
function bruteForce(doc: LightDocument, selector: DomRule): number[] {
  const complexes = selector.complexes ?? [];
  return doc.elements
    .map((_, index) => index)
    .filter((index) => complexes.some((complex) => complexMatches(doc, index, complex)))
    .slice(0, MAX_DOM_NODES);
}

/** Ids (or tags) of what the matcher yields, checked against the brute force first. */
function select(html: string, selector: string): string[] {
  const doc = parseHtml(html);
  const r = rule(selector);
  const nodes = new DomMatcher(doc, [r]).nodes(r);
  expect(nodes).toEqual(bruteForce(doc, r));
  // The page many times over: too many candidates to try them all before asking what is possible.
  const long = parseHtml(html.repeat(20));
  expect(new DomMatcher(long, [r]).nodes(r)).toEqual(bruteForce(long, r));
  return nodes.map((index) => getAttribute(doc.elements[index], 'id') ?? doc.elements[index].tag);
}

describe('DomMatcher rules out complexes by the values the page holds', () => {
  it('an entity-encoded value matches as its decoded text, not as written', () => {
    const html = '<div id="a" class="q&#117;ill-x"></div><a id="b" href="/x&amp;y">b</a>';
    expect(select(html, 'div[class*=quill]')).toEqual(['a']);
    expect(select(html, 'div[class*="q&#117;ill"]')).toEqual([]);
    expect(select(html, 'a[href="/x&y"]')).toEqual(['b']);
    expect(select(html, 'a[href*="&amp;"]')).toEqual([]);
    expect(select(html, 'div.quill-x#a')).toEqual(['a']);
  });

  it('attribute values are case-sensitive unless the test has the i flag', () => {
    const html = '<img id="a" alt="PayPal Credit"><img id="b" alt="ΑΣ ok">';
    expect(select(html, 'img[alt*="paypal"]')).toEqual([]);
    expect(select(html, 'img[alt*="paypal" i]')).toEqual(['a']);
    expect(select(html, 'img[alt="PAYPAL CREDIT" i]')).toEqual(['a']);
    expect(select(html, 'img[alt^="ας" i]')).toEqual(['b']);
    expect(select(html, 'img[alt*="PayPal Credit"]')).toEqual(['a']);
  });

  it('a text found only across two values is no match', () => {
    const html = '<p id="a" title="ab"></p><p id="b" title="cd"></p>';
    expect(select(html, 'p[title*="b\ncd"]')).toEqual([]);
    expect(select(html, 'p[title*="bc"]')).toEqual([]);
    expect(select(html, 'p[title$="d"]')).toEqual(['b']);
  });

  it('every compound counts: a missing ancestor value rules the complex out, a present one does not', () => {
    const html =
      '<footer id="f" class="site"><div id="d1" data-x="one"><span id="s1">x</span></div></footer><div id="d2"><span id="s2">y</span></div>';
    expect(select(html, 'footer.site > div span')).toEqual(['s1']);
    expect(select(html, 'footer.other > div span')).toEqual([]);
    expect(select(html, '[data-x="one"] > span')).toEqual(['s1']);
    expect(select(html, '[data-x="two"] > span')).toEqual([]);
    expect(select(html, '[data-y] span, #s2')).toEqual(['s2']);
    expect(select(html, '#nowhere span')).toEqual([]);
  });

  it(':not() is not a value the element needs', () => {
    const html = '<div id="a" class="x"></div><div id="b"></div>';
    expect(select(html, 'div:not([class*=absent])')).toEqual(['a', 'b']);
    expect(select(html, 'div:not(.x)')).toEqual(['b']);
    expect(select(html, 'div:not([data-none])')).toEqual(['a', 'b']);
  });

  it('the operators each need the text inside the value', () => {
    const html = '<a id="a" rel="noopener nofollow" lang="en-US" href="https://cdn.example/x.js"></a>';
    expect(select(html, 'a[rel~=nofollow]')).toEqual(['a']);
    expect(select(html, 'a[rel~=follow]')).toEqual([]);
    expect(select(html, 'a[lang|=en]')).toEqual(['a']);
    expect(select(html, 'a[lang|=fr]')).toEqual([]);
    expect(select(html, 'a[href^="https://cdn"]')).toEqual(['a']);
    expect(select(html, 'a[href$=".css"]')).toEqual([]);
    expect(select(html, 'a[href=""]')).toEqual([]);
    expect(select('<a id="e" href=""></a>', 'a[href=""]')).toEqual(['e']);
  });

  it('classes and ids are read off the values: absent, repeated, or in a value with others', () => {
    const html =
      '<p id="a" class="k k"></p><p id="b" class="kk x-k"></p><p id="c" class=" x\tk "></p><p id="d"></p>';
    expect(select(html, '.k')).toEqual(['a', 'c']);
    expect(select(html, 'p.x-k')).toEqual(['b']);
    expect(select(html, '.absent, #d')).toEqual(['d']);
    expect(select(html, '.kk.x-k#b')).toEqual(['b']);
    expect(select(html, '#a.k, #c')).toEqual(['a', 'c']);
    expect(select(html, '[class*="k x"]')).toEqual(['b']);
    expect(select(html, '[class*="k k x"]')).toEqual([]);
  });

  it('rules of one selector get the same elements, whichever comes first', () => {
    const doc = parseHtml('<style id="s1">a{}</style><div><style id="s2">b{}</style></div>');
    const first = new DomRule(1, 'style', undefined, null, null, [], null);
    const second = new DomRule(2, 'style', undefined, null, null, [], null);
    const matcher = new DomMatcher(doc, [first, second]);
    expect(matcher.nodes(second)).toEqual(bruteForce(doc, first));
    expect(matcher.nodes(first)).toEqual(matcher.nodes(second));
    expect(matcher.nodes(rule('div > style'))).toEqual([2]);
  });

  it('a rule the matcher was not told about still matches', () => {
    const doc = parseHtml('<div id="a" class="k" data-v="w"></div>');
    const r = rule('div.k[data-v=w]');
    expect(new DomMatcher(doc).nodes(r)).toEqual([0]);
  });
});

describe('DomMatcher.matchesAny and hasAttribute', () => {
  const doc = parseHtml('<div id="a" data-v="1"><span class="k"></span></div><p data-w></p>');

  it('tells whether the selector matches anything, its nodes known already or not', () => {
    for (const selector of ['span.k', 'p, span', 'div > p', 'span.x, div.k', 'div#a > span']) {
      const r = rule(selector);
      const expected = bruteForce(doc, r).length > 0;
      const matcher = new DomMatcher(doc, [r]);
      expect([selector, matcher.matchesAny(r)]).toEqual([selector, expected]);
      matcher.nodes(r);
      expect([selector, matcher.matchesAny(r)]).toEqual([selector, expected]);
    }
    expect(new DomMatcher(doc).matchesAny(rule('div:has(p)'))).toBe(false); // unreadable
  });

  it('tells whether some element has an attribute, its name registered or not', () => {
    const reads = new DomRule(
      0,
      'p',
      undefined,
      null,
      null,
      [{ name: 'data-w', pattern: compilePattern('x') }],
      null,
    );
    const matcher = new DomMatcher(doc, [reads]);
    expect(['data-w', 'data-v', 'class', 'data-x'].map((name) => matcher.hasAttribute(name))).toEqual([
      true,
      true,
      true,
      false,
    ]);
  });
});

describe('DomMatcher.firstTextMatch', () => {
  const html =
    '<div id="outer">outer <div id="mid">mid <div id="inner">inner HiOS-x-1.2.3</div></div></div><div id="after">after</div>';

  /** The reference: every element's trimmed text tried in turn. */
  function reference(
    doc: LightDocument,
    matcher: DomMatcher,
    nodes: readonly number[],
    regex: RegExp,
  ): string | null {
    for (const node of nodes) {
      const text = matcher.text(node).trim();
      const match = text ? regex.exec(text) : null;
      if (match) return match[0];
    }
    return null;
  }

  it('gives what trying every element in turn gives, anchored patterns included', () => {
    const doc = parseHtml(html);
    const matcher = new DomMatcher(doc);
    const divs = matcher.nodes(rule('div'));
    expect(divs).toHaveLength(4);
    for (const regex of [
      /HiOS-.{1,250}-(\d)/i,
      /^inner/i,
      /^mid/i,
      /after$/i,
      /\bmid\b/i,
      /nowhere/i,
      /(?:)/i,
    ]) {
      const match = matcher.firstTextMatch(divs, regex);
      expect([regex.source, match ? match[0] : null]).toEqual([
        regex.source,
        reference(doc, matcher, divs, regex),
      ]);
    }
    expect(matcher.firstTextMatch(divs, /^inner/i)?.[0]).toBe('inner');
    expect(matcher.firstTextMatch(divs, /after/i)?.[0]).toBe('after');
  });

  it('a long text searched for the strings the regex needs gives the same matches', () => {
    // Wrappers with texts long enough to be searched before they are built (by a regex with
    // assertions, or by any regex past the characters a text is read to); the string a match needs
    // is cut by tags, written in other cases or encoded, or missing.
    const page = (filler: string, needle: string): string =>
      `<div id="outer">${filler}<div id="mid">${filler}<span>${needle}</span> tail</div></div><div>after</div>`;
    const cases = ['HiOS-x-1.2.3', 'h<b>iO</b>s-x-4.5.6', 'HiO&#83;-x-7.8.9', 'HiOS-', 'HiO S-x-1.2.3'].map(
      (needle) => page('word '.repeat(8_000), needle),
    );
    cases.push(page('word '.repeat(110_000), 'HiOS-x-1.2.3'), page('word '.repeat(110_000), 'HiOS-'));
    for (const markup of cases) {
      const doc = parseHtml(markup);
      const divs = new DomMatcher(doc).nodes(rule('div'));
      // A matcher whose texts are all built already runs the regex on each of them.
      const built = new DomMatcher(doc);
      for (const node of divs) built.text(node);
      for (const regex of [/HiOS-.{1,250}-(\d)/i, /^word/i, /tail$/i, /after/i]) {
        const match = new DomMatcher(doc).firstTextMatch(divs, regex);
        const expected = reference(doc, built, divs, regex);
        expect([markup.slice(-60), regex.source, match?.[0] ?? null]).toEqual([
          markup.slice(-60),
          regex.source,
          expected,
        ]);
        expect(built.firstTextMatch(divs, regex)?.[0] ?? null).toBe(expected);
      }
    }
  });
});

describe('DomMatcher against trying every element, on random pages and selectors', () => {
  it('yields what the brute force yields', () => {
    const random = seededRandom(35);
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)];
    const tags = ['div', 'span', 'a', 'p'];
    const names = ['class', 'id', 'title', 'data-x'];
    const valuePieces = ['ab', 'Ab', 'c', ' ', '&#97;', '&amp;', '-', 'x y', '&AMP;b'];
    const textPieces = ['ab', 'c', 'A', '-', 'x', 'AB', 'b c', '&'];
    const ops = ['', '=', '~=', '|=', '^=', '$=', '*='];
    const compound = (): string => {
      let out = random() < 0.6 ? pick(tags) : '';
      const tests = random() < 0.7 ? 1 : 2;
      for (let k = 0; k < tests; k++) {
        const kind = random();
        if (kind < 0.2) out += `.${pick(['ab', 'c', 'Ab', 'x'])}`;
        else if (kind < 0.3) out += `#${pick(['ab', 'c', 'x'])}`;
        else {
          const op = pick(ops);
          let text = '';
          for (let n = Math.floor(random() * 2.5); n > 0; n--) text += pick(textPieces);
          out += op ? `[${pick(names)}${op}"${text}"${random() < 0.3 ? ' i' : ''}]` : `[${pick(names)}]`;
        }
      }
      if (random() < 0.15) out += `:not(.${pick(['ab', 'c'])})`;
      return out;
    };
    const wrong: [string, string][] = [];
    for (let round = 0; round < 3_000; round++) {
      let html = '';
      for (let e = Math.floor(random() * 12); e > 0; e--) {
        html += `<${pick(tags)}`;
        for (const name of names) {
          if (random() < 0.5) continue;
          let value = '';
          for (let n = Math.floor(random() * 4); n > 0; n--) value += pick(valuePieces);
          html += ` ${name}="${value}"`;
        }
        html += '>';
        if (random() < 0.4) html += `</${pick(tags)}>`;
      }
      let selector = compound();
      for (let n = Math.floor(random() * 2); n > 0; n--)
        selector += `${pick([' ', ' > ', ' + ', ' ~ '])}${compound()}`;
      if (random() < 0.2) selector += `, ${compound()}`;
      const doc = parseHtml(html);
      const r = rule(selector);
      if (r.complexes === null) continue;
      const expected = bruteForce(doc, r);
      const nodes = new DomMatcher(doc, [r]).nodes(r);
      if (JSON.stringify(nodes) !== JSON.stringify(expected)) wrong.push([html, selector]);
      if (new DomMatcher(doc, [r]).matchesAny(r) !== expected.length > 0)
        wrong.push([html, `any ${selector}`]);
    }
    expect(wrong).toEqual([]);
  });
});
