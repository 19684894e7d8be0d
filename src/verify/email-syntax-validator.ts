import { domainToASCII } from 'node:url';

export interface ParsedEmailAddress {
  localPart: string;
  /** Lower case, ASCII (IDN labels converted to punycode). */
  domain: string;
}

const MAX_LOCAL_PART_LENGTH = 64;
const MAX_DOMAIN_LENGTH = 255;

/**
 * The practical grammar of mailbox providers rather than the full RFC 5322 one: dot-atoms of
 * atext only (no quoted strings, comments or address literals), because addresses that need
 * those are not accepted by the mail systems people actually sign up with.
 */
const LOCAL_PART = /^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*$/;
const DOMAIN_LABEL = /^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/;

/** The domain as written after the last '@' (for reporting even when the address is invalid). */
export function domainPartOf(input: string): string {
  const at = input.lastIndexOf('@');
  return at < 0 ? '' : input.slice(at + 1).toLowerCase();
}

/** Returns the parts of a syntactically valid address, or null. Never throws. */
export function parseEmailAddress(input: string): ParsedEmailAddress | null {
  const at = input.indexOf('@');
  if (at <= 0 || at !== input.lastIndexOf('@')) return null;
  const localPart = input.slice(0, at);
  const rawDomain = input.slice(at + 1);
  if (localPart.length > MAX_LOCAL_PART_LENGTH || !LOCAL_PART.test(localPart)) return null;
  // domainToASCII applies UTS #46 (case folding, IDN to punycode) and returns '' when it cannot.
  const domain = rawDomain === '' || rawDomain.endsWith('.') ? '' : domainToASCII(rawDomain);
  if (!isValidDomain(domain)) return null;
  return { localPart, domain };
}

function isValidDomain(domain: string): boolean {
  if (domain.length === 0 || domain.length > MAX_DOMAIN_LENGTH) return false;
  const labels = domain.split('.');
  if (labels.length < 2 || !labels.every((label) => DOMAIN_LABEL.test(label))) return false;
  // An all-numeric last label would make "1.2.3.4" a domain; IP addresses are not mail domains here.
  return !/^[0-9]+$/.test(labels[labels.length - 1]);
}
