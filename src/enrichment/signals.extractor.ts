import type { EnrichmentTechnology } from './enrichment-input';
import type { SignalsSet, SpendOrTrafficLevel } from './site-enrichment';

/**
 * Monthly cost in US dollars that a fingerprint's pricing tag stands for: the middle of the bands
 * webappanalyzer defines (low: under $100/month, mid: $100-1,000, high: over $1,000). "poa" (price
 * on application) is counted as mid: sold by quote, rarely cheap, but nothing says more. freemium,
 * onetime, recurring and payg describe the model, not the amount, and count nothing on their own.
 */
export const PRICING_TAG_MONTHLY_USD: Readonly<Record<string, number>> = {
  low: 50,
  mid: 500,
  high: 2000,
  poa: 500,
};

/** Upper bounds (exclusive) of the spend labels, in US dollars per month. */
export const SPEND_LEVELS: readonly (readonly [SpendOrTrafficLevel, number])[] = [
  ['Very low', 100],
  ['Low', 500],
  ['Medium', 2000],
  ['High', 10_000],
  ['Very high', Number.POSITIVE_INFINITY],
];

/** Upper bounds (inclusive) of the traffic labels, by rank (1 = the most visited site). */
export const TRAFFIC_LEVELS: readonly (readonly [SpendOrTrafficLevel, number])[] = [
  ['Very high', 1_000],
  ['High', 10_000],
  ['Medium', 100_000],
  ['Low', 1_000_000],
  ['Very low', Number.POSITIVE_INFINITY],
];

/**
 * technologySpend: each detected technology counts its costliest pricing tag; the sum is the site's
 * estimated monthly spend, labelled by SPEND_LEVELS. Absent when no detected technology has a cost
 * tag (free software and unknown prices look the same in the data, so nothing is claimed).
 */
export function technologySpendOf(
  technologies: readonly EnrichmentTechnology[],
): SpendOrTrafficLevel | undefined {
  let total = 0;
  let priced = false;
  for (const technology of technologies) {
    const cost = Math.max(0, ...(technology.pricing ?? []).map((tag) => PRICING_TAG_MONTHLY_USD[tag] ?? 0));
    if (cost > 0) {
      priced = true;
      total += cost;
    }
  }
  if (!priced) return undefined;
  return SPEND_LEVELS.find(([, below]) => total < below)?.[0];
}

/** trafficLevel of a rank; absent without a rank. */
export function trafficLevelOf(rank: number | undefined): SpendOrTrafficLevel | undefined {
  if (rank === undefined || !Number.isFinite(rank) || rank < 1) return undefined;
  return TRAFFIC_LEVELS.find(([, atMost]) => rank <= atMost)?.[0];
}

export function extractSignals(
  technologies: readonly EnrichmentTechnology[],
  rank: number | undefined,
): SignalsSet {
  const out: SignalsSet = {};
  const spend = technologySpendOf(technologies);
  if (spend) out.technologySpend = spend;
  const traffic = trafficLevelOf(rank);
  if (traffic) out.trafficLevel = traffic;
  return out;
}
