/** What the engine reports; plain data, safe to serialise and store. */

export type EvidenceKind =
  | 'url'
  | 'html'
  | 'text'
  | 'css'
  | 'robots'
  | 'scriptSrc'
  | 'scripts'
  | 'certIssuer'
  | 'headers'
  | 'cookies'
  | 'meta'
  | 'dns'
  | 'dom'
  | 'js'
  | 'xhr'
  | 'implies';

export interface Evidence {
  kind: EvidenceKind;
  /**
   * Header, cookie, meta or DNS record name; CSS selector (with " @attr", " ::text" or " .property")
   * for dom; the property chain for js; the request (host and path) for xhr.
   */
  key?: string;
  /** The pattern as written in the fingerprints (tags included); for implies, the implying technology. */
  pattern: string;
  /** What it matched, at most EVIDENCE_MATCH_LIMIT characters. */
  matched: string;
}

export interface DetectedCategory {
  id: number;
  slug: string;
  name: string;
  priority: number;
}

export interface DetectedTechnology {
  name: string;
  slug: string;
  categories: DetectedCategory[];
  /** Every distinct version seen, best first. */
  versions: string[];
  /** The best single version ('' when unknown): the longest candidate of at most 15 characters. */
  version: string;
  /** 0-100: confidences of every match summed and capped at 100. */
  confidence: number;
  icon: string;
  website: string;
  cpe?: string;
  /** True when found only because another technology implies it. */
  implied: boolean;
  evidence: Evidence[];
}

export interface SkippedTechnology {
  slug: string;
  name: string;
  /** The pattern kind that needs a browser. */
  reason: 'js' | 'xhr';
}

export interface DetectionResult {
  technologies: DetectedTechnology[];
  /**
   * Technologies not found whose js or xhr patterns could not be tried without a browser and which the
   * page hints at (the JavaScript global or XHR host they look for is named in its markup or scripts).
   */
  skipped: SkippedTechnology[];
  /**
   * The fingerprint version that produced the result (the engine's `version`): stored with every
   * observation so a trend can be read against the rules that made it. A merged result of pages
   * analysed with different versions lists them, distinct, joined by ',' (see mergeResults).
   */
  fingerprintsVersion: string;
}

export const MAX_EVIDENCE = 10;
export const EVIDENCE_MATCH_LIMIT = 120;
