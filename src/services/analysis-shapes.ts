import type { DetectedTechnology } from '../detection';
import type { FetchError } from '../fetch';

/** The Application object (Analyze v1, Crawl v1 and Lookup callbacks). */
export interface ApplicationObject {
  name: string;
  /** Numeric text, e.g. "100". */
  confidence: string;
  /** '' when unknown. */
  version: string;
  icon: string;
  website: string;
  /** Single-entry objects: category id (as text) → name. */
  categories: Record<string, string>[];
}

/** The Technology object of Live v2 and Crawl v2. */
export interface TechnologyObject {
  slug: string;
  name: string;
  versions: string[];
  categories: { id: number; slug: string; name: string }[];
  confidence: number;
  confirmedAt: number;
}

export interface ErrorObject {
  type: string;
  message: string;
}

/** What an Application object is made of: a detected technology, or its GraphQL form. */
export type ApplicationSource = Pick<
  DetectedTechnology,
  'name' | 'confidence' | 'version' | 'icon' | 'website'
> & {
  categories: { id: number; name: string }[];
};

export function toApplication(t: ApplicationSource): ApplicationObject {
  return {
    name: t.name,
    confidence: String(t.confidence),
    version: t.version,
    icon: t.icon,
    website: t.website,
    categories: t.categories.map((c) => ({ [String(c.id)]: c.name })),
  };
}

export function toTechnology(t: DetectedTechnology, confirmedAt: Date): TechnologyObject {
  return {
    slug: t.slug,
    name: t.name,
    versions: t.versions,
    categories: t.categories.map((c) => ({ id: c.id, slug: c.slug, name: c.name })),
    confidence: t.confidence,
    confirmedAt: Math.floor(confirmedAt.getTime() / 1000),
  };
}

export function toErrorObject(error: FetchError): ErrorObject {
  return { type: error.type, message: error.message };
}
