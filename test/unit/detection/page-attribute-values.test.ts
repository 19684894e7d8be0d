import { PageAttributeValues } from '../../../src/detection/page-attribute-values';

describe('PageAttributeValues.holds: whether some value of a name holds a text', () => {
  it('answers as trying each value would, however many values the page has', () => {
    for (const count of [1, 2, 50, 5_000]) {
      const values = Array.from({ length: count }, (_, k) => `menu-item item-${k}`);
      values[count - 1] += ' Checkout-Button';
      const page = new PageAttributeValues();
      const each = (text: string, insensitive: boolean): boolean =>
        values.some((value) =>
          insensitive ? value.toLowerCase().includes(text.toLowerCase()) : value.includes(text),
        );
      for (const [text, insensitive] of [
        ['Checkout', false],
        ['checkout', false],
        ['checkout', true],
        [`item-${count - 1}`, false],
        ['item-0', false],
        ['nowhere', true],
      ] as const)
        expect([count, text, insensitive, page.holds(values, 'class', text, insensitive)]).toEqual([
          count,
          text,
          insensitive,
          each(text, insensitive),
        ]);
    }
  });

  it('a value longer than a chunk is searched whole, wherever it comes', () => {
    const dataUrl = `data:image/png;base64,${'QUJD'.repeat(10_000)}amazonpay`;
    const page = new PageAttributeValues();
    expect(page.holds(['a.png', dataUrl, 'b.png'], 'src', 'amazonpay', false)).toBe(true);
    expect(page.holds(['a.png', dataUrl, 'b.png'], 'src', 'b.png', false)).toBe(true);
    expect(page.holds(['a.png', dataUrl, 'b.png'], 'src', 'paypal', false)).toBe(false);
    expect(new PageAttributeValues().holds([], 'src', 'a', false)).toBe(false);
  });

  it('answers the first questions about a name value by value, the later ones in the values joined', () => {
    const page = new PageAttributeValues();
    const values = ['menu', 'item'];
    // The first ones: exact, no text found across two values.
    for (let k = 0; k < 4; k++) expect(page.holds(values, 'class', 'menu\nitem', false)).toBe(false);
    // Later: the join may let a text across two values through, but never misses one a value holds.
    expect(page.holds(values, 'class', 'item', false)).toBe(true);
    expect(page.holds(values, 'class', 'menu\nitem', false)).toBe(true);
    expect(page.holds(values, 'class', 'nowhere', false)).toBe(false);
    expect(page.holds(['Menu', 'Item'], 'title', 'ITEM', true)).toBe(true);
  });
});
