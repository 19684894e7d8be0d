import { acceptSubdomain } from './subdomain-name-rules';
import type { SubdomainObservation, SubdomainSource } from './subdomain-observation';

/**
 * Gathers the names one pass finds for one domain: applies acceptSubdomain, keeps one
 * observation per name and source, and stops accepting once the pass is over, so answers that
 * arrive after a deadline cannot change a result already handed back.
 */
export class ObservationCollector {
  private readonly observations = new Map<string, SubdomainObservation>();
  private finished = false;

  constructor(
    private readonly domain: string,
    private readonly now: () => Date = () => new Date(),
  ) {}

  /** Records `rawName` if it belongs to the domain; returns the stored form or null. */
  add(rawName: string, source: SubdomainSource): string | null {
    const name = acceptSubdomain(rawName, this.domain);
    if (name === null || this.finished) return name;
    const key = `${source} ${name}`;
    if (!this.observations.has(key)) this.observations.set(key, { name, source, seenAt: this.now() });
    return name;
  }

  finish(): SubdomainObservation[] {
    this.finished = true;
    return [...this.observations.values()];
  }
}
