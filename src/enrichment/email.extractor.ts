import { parse as parseHost } from 'tldts';
import { hrefMayStartWith } from './href-start';
import { addCapped, LIMITS, nonEmpty } from './limits';
import type { SiteContext } from './site-context';
import type { EmailSet } from './site-enrichment';
import { textOf, valuesOf } from './structured-data';

const MAX_TEXT = 100_000;
const EMAIL_IN_TEXT =
  /[A-Za-z0-9._%+-]{1,64}@(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.){1,8}[A-Za-z]{2,24}\b/g;
/** Addresses that stand in for a real one in templates, and hosts that are never a site's own mailbox. */
const PLACEHOLDER_DOMAINS = new Set([
  'example.com',
  'example.org',
  'example.net',
  'domain.com',
  'email.com',
  'yourdomain.com',
  'yoursite.com',
  'mysite.com',
  'company.com',
  'sentry.io',
  'sentry-next.wixpress.com',
  'wixpress.com',
  'mail.com',
]);
const MAILTO_HREF = /^\s*mailto:(.{3,300})$/i;
const FILE_SUFFIX = /\.(?:png|jpe?g|gif|svg|webp|avif|css|js)$/i;

/** A plausible, public address, lowercased; undefined otherwise. */
export function normaliseEmail(raw: string): string | undefined {
  const email = raw
    .trim()
    .replace(/^mailto:/i, '')
    .split('?')[0]
    .toLowerCase();
  if (email.length > 254 || FILE_SUFFIX.test(email)) return undefined;
  const at = email.lastIndexOf('@');
  if (at < 1 || at > 64) return undefined;
  const local = email.slice(0, at);
  const domain = email.slice(at + 1);
  if (
    !/^[a-z0-9!#$%&'*+/=?^_`{|}~.-]+$/.test(local) ||
    local.startsWith('.') ||
    local.endsWith('.') ||
    local.includes('..')
  )
    return undefined;
  const host = parseHost(domain);
  if (!host.domain || !(host.isIcann || host.isPrivate) || host.hostname !== domain) return undefined;
  if (PLACEHOLDER_DOMAINS.has(host.domain) || PLACEHOLDER_DOMAINS.has(domain)) return undefined;
  return email;
}

/** "[at]", "(dot)"... with the white space around them, which deobfuscate replaces. */
const OBFUSCATED_AT = /\s*[[({]\s*(?:at|@|ät)\s*[\])}]\s*/gi;
const OBFUSCATED_DOT = /\s*[[({]\s*(?:dot|punkt|point)\s*[\])}]\s*/gi;
/**
 * The same without the white space around, from their bracket on: every match of the above holds
 * one of these, and these are tried only where the text has a bracket (found with indexOf, not a
 * regex scan), so a text without one is neither scanned by a regex nor copied.
 */
const BARE_AT = /[[({]\s*(?:at|@|ät)\s*[\])}]/iy;
const BARE_DOT = /[[({]\s*(?:dot|punkt|point)\s*[\])}]/iy;
const BRACKETS = ['[', '(', '{'];

/** Whether the sticky `bare` matches at one of the text's brackets. */
function matchesAtABracket(text: string, bare: RegExp): boolean {
  for (const bracket of BRACKETS) {
    for (let at = text.indexOf(bracket); at >= 0; at = text.indexOf(bracket, at + 1)) {
      bare.lastIndex = at;
      if (bare.test(text)) return true;
    }
  }
  return false;
}

/**
 * "info [at] acme [dot] de", "info(at)acme.de" → "info@acme.de" (imprints write addresses so). The
 * "(dot)"s are left as written in a text that holds no "@" then (no address is read from it anyway).
 */
export function deobfuscate(text: string): string {
  const withAt = matchesAtABracket(text, BARE_AT) ? text.replace(OBFUSCATED_AT, '@') : text;
  if (withAt.indexOf('@') < 0) return withAt;
  return matchesAtABracket(withAt, BARE_DOT) ? withAt.replace(OBFUSCATED_DOT, '.') : withAt;
}

/**
 * EMAIL_IN_TEXT's matches, as matchAll gives them, with the search started at most 64 characters
 * (the longest local part) before the next "@": every match holds exactly one "@", so no match can
 * start earlier, and the regex is not tried at every position of a long text without addresses.
 */
function* emailsIn(text: string): Generator<string> {
  const regex = new RegExp(EMAIL_IN_TEXT);
  let from = 0;
  for (;;) {
    const at = text.indexOf('@', from);
    if (at < 0) return;
    regex.lastIndex = Math.max(from, at - 64);
    const match = regex.exec(text);
    if (!match) return;
    yield match[0];
    from = regex.lastIndex;
  }
}

function safeDecode(value: string): string {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
}

/**
 * email: mailto: links of every page, `email` of the structured data, and addresses written in the
 * visible text of every page (scripts and styles are not text), de-obfuscated ("[at]", "(dot)").
 * Addresses must have a public domain; template placeholders (example.com...) and file names
 * (logo@2x.png) are dropped.
 */
export function extractEmails(context: SiteContext): EmailSet {
  const found = new Set<string>();
  for (const page of context.pages) {
    for (const anchor of page.doc.anchors) {
      const target = hrefMayStartWith(anchor.href, 'm') ? MAILTO_HREF.exec(anchor.href)?.[1] : undefined;
      if (target)
        for (const part of safeDecode(target).split(','))
          addCapped(found, normaliseEmail(part), LIMITS.values);
    }
  }
  for (const node of context.nodes) {
    for (const value of valuesOf(node.props, 'email').slice(0, 5)) {
      const text = textOf(value);
      if (text) addCapped(found, normaliseEmail(text), LIMITS.values);
    }
  }
  for (const page of context.pages) {
    if (found.size >= LIMITS.values) break;
    for (const match of emailsIn(deobfuscate(page.doc.text.slice(0, MAX_TEXT)))) {
      if (!addCapped(found, normaliseEmail(match), LIMITS.values)) break;
    }
  }
  const email = nonEmpty(found);
  return email ? { email } : {};
}
