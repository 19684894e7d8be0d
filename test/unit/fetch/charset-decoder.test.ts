import { decodeHtml, decodeText, sniffMetaCharset } from '../../../src/fetch/charset-decoder';

const latin1 = (text: string): Buffer => Buffer.from(text, 'latin1');

describe('decodeHtml', () => {
  it('uses the Content-Type charset', () => {
    const decoded = decodeHtml(latin1('<p>caf\u00e9</p>'), 'text/html; charset=ISO-8859-1');
    expect(decoded).toEqual({ text: '<p>café</p>', charset: 'windows-1252', source: 'header' });
  });

  it('accepts a quoted charset parameter', () => {
    expect(decodeHtml(latin1('\u00e9'), 'text/html; charset="windows-1252"').text).toBe('é');
  });

  it('sniffs <meta charset> when the header has none', () => {
    const bytes = Buffer.from([
      ...Buffer.from('<meta charset="windows-1251"><p>'),
      0xcf,
      0xf0,
      0xe8,
      0xe2,
      0xe5,
      0xf2,
    ]);
    const decoded = decodeHtml(bytes, 'text/html');
    expect(decoded.charset).toBe('windows-1251');
    expect(decoded.source).toBe('meta');
    expect(decoded.text).toContain('Привет');
  });

  it('sniffs <meta http-equiv="Content-Type">', () => {
    const html = latin1('<META HTTP-EQUIV="Content-Type" CONTENT="text/html; charset=Shift_JIS">');
    expect(sniffMetaCharset(html)).toBe('Shift_JIS');
    expect(decodeHtml(html, undefined).charset).toBe('shift_jis');
  });

  it('lets a byte order mark win over the header and strips it', () => {
    const bytes = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<p>ü</p>')]);
    expect(decodeHtml(bytes, 'text/html; charset=iso-8859-1')).toEqual({
      text: '<p>ü</p>',
      charset: 'utf-8',
      source: 'bom',
    });
  });

  it('decodes UTF-16 with a BOM', () => {
    const bytes = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from('<p>hi</p>', 'utf16le')]);
    expect(decodeHtml(bytes, 'text/html').text).toBe('<p>hi</p>');
  });

  it('treats a meta declaration of UTF-16 as UTF-8 (the markup was readable as ASCII)', () => {
    expect(decodeHtml(Buffer.from('<meta charset="utf-16"><p>ü</p>'), undefined).charset).toBe('utf-8');
  });

  it('falls back from an unknown label to sniffing, then to UTF-8', () => {
    const decoded = decodeHtml(Buffer.from('<p>ü</p>'), 'text/html; charset=klingon');
    expect(decoded).toEqual({ text: '<p>ü</p>', charset: 'utf-8', source: 'default' });
  });

  it('falls back to windows-1252 when undeclared bytes are not valid UTF-8', () => {
    const decoded = decodeHtml(latin1('<p>na\u00efve</p>'), 'text/html');
    expect(decoded).toEqual({ text: '<p>naïve</p>', charset: 'windows-1252', source: 'default' });
  });

  it('never throws on broken bytes in a declared encoding', () => {
    const decoded = decodeHtml(Buffer.from([0x3c, 0x70, 0x3e, 0xff, 0xfe, 0xfd]), 'text/html; charset=utf-8');
    expect(decoded.text).toBe('<p>\ufffd\ufffd\ufffd');
  });
});

describe('decodeText', () => {
  it('decodes assets as UTF-8 unless the header says otherwise', () => {
    expect(decodeText(Buffer.from('é'), 'text/css')).toBe('é');
    expect(decodeText(latin1('\u00e9'), 'text/css; charset=latin1')).toBe('é');
  });
});
