export interface DecodedText {
  text: string;
  /** The WHATWG encoding name used (e.g. "utf-8", "windows-1251", "shift_jis"). */
  charset: string;
  /** Where the charset came from. */
  source: 'bom' | 'header' | 'meta' | 'default';
}

/** How far into the document the <meta> prescan looks (the HTML standard says 1024; real pages are sloppier). */
const META_PRESCAN_BYTES = 4096;

const BOMS: ReadonlyArray<[number[], string]> = [
  [[0xef, 0xbb, 0xbf], 'utf-8'],
  [[0xfe, 0xff], 'utf-16be'],
  [[0xff, 0xfe], 'utf-16le'],
];

/**
 * Decodes an HTML body the way browsers do (WHATWG "encoding sniffing"): a byte order mark wins,
 * then the Content-Type charset, then a <meta charset> or <meta http-equiv="Content-Type"> in the
 * first bytes; without any, UTF-8 when the bytes are valid UTF-8, else windows-1252 (the web's
 * legacy default). TextDecoder does the work (Node ships full ICU, so windows-1251, Shift_JIS, GBK,
 * EUC-KR... all decode); an unknown or unsupported label falls back instead of failing.
 */
export function decodeHtml(bytes: Uint8Array, contentType: string | undefined): DecodedText {
  const bom = BOMS.find(([mark]) => mark.every((byte, index) => bytes[index] === byte));
  if (bom) return { text: decodeWith(bom[1], bytes.subarray(bom[0].length)), charset: bom[1], source: 'bom' };

  const fromHeader = supportedEncoding(charsetOfContentType(contentType));
  if (fromHeader) return { text: decodeWith(fromHeader, bytes), charset: fromHeader, source: 'header' };

  const fromMeta = supportedEncoding(sniffMetaCharset(bytes));
  if (fromMeta) {
    // A page cannot declare UTF-16 from inside itself: the prescan only ever sees ASCII-compatible bytes.
    const charset = fromMeta.startsWith('utf-16') ? 'utf-8' : fromMeta;
    return { text: decodeWith(charset, bytes), charset, source: 'meta' };
  }

  try {
    return {
      text: new TextDecoder('utf-8', { fatal: true }).decode(bytes),
      charset: 'utf-8',
      source: 'default',
    };
  } catch {
    return { text: decodeWith('windows-1252', bytes), charset: 'windows-1252', source: 'default' };
  }
}

export function charsetOfContentType(contentType: string | undefined): string | undefined {
  const match = /;\s*charset\s*=\s*("?)([^";\s]+)\1/i.exec(contentType ?? '');
  return match?.[2];
}

/** The charset declared by a <meta> tag near the top of the document, if any. */
export function sniffMetaCharset(bytes: Uint8Array): string | undefined {
  // latin1 maps every byte to one char, so ASCII markup is readable whatever the real encoding is.
  const head = Buffer.from(
    bytes.buffer,
    bytes.byteOffset,
    Math.min(bytes.length, META_PRESCAN_BYTES),
  ).toString('latin1');
  for (const tag of head.match(/<meta\s[^>]*>/gi) ?? []) {
    const direct = /\scharset\s*=\s*["']?\s*([\w.:-]+)/i.exec(tag);
    if (direct) return direct[1];
    if (/http-equiv\s*=\s*["']?content-type/i.test(tag)) {
      const content = /content\s*=\s*(["'])(.*?)\1/i.exec(tag);
      const charset = charsetOfContentType(content?.[2]);
      if (charset) return charset;
    }
  }
  return undefined;
}

/** The canonical name of an encoding label TextDecoder supports, or undefined. */
function supportedEncoding(label: string | undefined): string | undefined {
  if (!label) return undefined;
  if (label.trim().toLowerCase() === 'x-user-defined') return 'windows-1252';
  try {
    return new TextDecoder(label.trim()).encoding;
  } catch {
    return undefined;
  }
}

/** Never throws: malformed sequences become U+FFFD, as in a browser. */
function decodeWith(charset: string, bytes: Uint8Array): string {
  return new TextDecoder(charset).decode(bytes);
}

/** Decodes a script or stylesheet: BOM, then the Content-Type charset, else UTF-8 (what browsers assume). */
export function decodeText(bytes: Uint8Array, contentType: string | undefined): string {
  const bom = BOMS.find(([mark]) => mark.every((byte, index) => bytes[index] === byte));
  if (bom) return decodeWith(bom[1], bytes.subarray(bom[0].length));
  return decodeWith(supportedEncoding(charsetOfContentType(contentType)) ?? 'utf-8', bytes);
}
