import { addCapped, LIMITS, nonEmpty } from './limits';
import type { SiteContext } from './site-context';
import type { TrackersSet } from './site-enrichment';

/**
 * Categories whose technologies follow visitors: measuring them (Analytics, Tag managers, A/B
 * Testing, Browser fingerprinting), targeting them (Advertising, Retargeting, Affiliate programs,
 * Personalisation, Segmentation) or profiling them (Customer data platform, Marketing automation).
 * Performance monitoring (RUM), consent tools and security products are not trackers here.
 */
export const TRACKER_CATEGORY_SLUGS: ReadonlySet<string> = new Set([
  'analytics',
  'tag-managers',
  'a-b-testing',
  'browser-fingerprinting',
  'advertising',
  'retargeting',
  'affiliate-programs',
  'personalisation',
  'segmentation',
  'customer-data-platform',
  'marketing-automation',
]);

const MAX_TRACKERS = 50;

/** trackers: names of the detected technologies in a tracking category, in detection order. */
export function extractTrackers(context: SiteContext): TrackersSet {
  const names = new Set<string>();
  for (const technology of context.input.technologies) {
    if (technology.categories.some((category) => TRACKER_CATEGORY_SLUGS.has(category.slug)))
      addCapped(names, technology.name, Math.max(LIMITS.values, MAX_TRACKERS));
  }
  const trackers = nonEmpty(names);
  return trackers ? { trackers } : {};
}
