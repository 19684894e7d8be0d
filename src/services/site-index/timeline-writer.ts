import type { EntityManager } from 'typeorm';
import type { Database } from '../../storage/database';
import type { SiteEntity, SiteTechnologyEntity, TechnologyChangeKind } from '../../storage/entities';
import { TechnologyTimelineRepository } from '../../storage/technology-timeline.repository';
import type { ChangeVulnerability } from '../changes/changes.contract';
import type { SiteObservation } from './site-index.service';
import { planLiveVersions, type LiveVersion } from './technology-live-versions';
import { planTimeline, type TimelinePlan } from './technology-timeline';

/** The timeline's part of one analysis: the site's rows before it and what it changes. */
export interface TimelineStep extends TimelinePlan {
  prior: SiteTechnologyEntity[];
  /** The technologies whose versions on the site change, with their rows now (planLiveVersions). */
  liveVersions: Map<string, LiveVersion[]>;
  /** Of those, the ones with rows stored before the analysis (to delete before the new rows go in). */
  staleLiveVersions: string[];
}

/** A change as it was committed, for the subscription and monitors. */
export interface RecordedChange {
  id: number;
  hostname: string;
  /** The site's registrable domain. */
  domain: string;
  slug: string;
  name: string;
  kind: TechnologyChangeKind;
  fromVersion: string;
  toVersion: string;
  fingerprintsVersion: string;
  /** UNIX milliseconds. */
  at: number;
  /** vulnerability changes (recorded by an import, not an analysis): what affects the technology. */
  vulnerability?: ChangeVulnerability;
}

/**
 * Keeps the timeline and the change log in step with the index: `plan` reads the site's rows in
 * the analysis's transaction, the site index's upsert writes each found technology's evidence with
 * its row, and `write` stores the rest (removals, version sightings, the versions on the site now,
 * the change rows). Once the
 * transaction has committed, `published` hands the changes to the listener (the event bus).
 */
export class TimelineWriter {
  private readonly repository: TechnologyTimelineRepository;

  constructor(
    db: Database,
    private readonly onChanges?: (changes: RecordedChange[]) => void,
  ) {
    this.repository = new TechnologyTimelineRepository(db);
  }

  async plan(m: EntityManager, siteId: number, observation: SiteObservation): Promise<TimelineStep> {
    const prior = await this.repository.siteTechnologies(m, siteId);
    const plan = planTimeline(prior, observation);
    const removedIds = new Set(plan.undetected.filter((row) => row.removed).map((row) => row.id));
    const removed = new Set(prior.filter((row) => removedIds.has(row.id)).map((row) => row.slug));
    const stored = await this.repository.liveVersions(m, siteId);
    const liveVersions = planLiveVersions(prior, stored, observation, removed);
    const storedSlugs = new Set(stored.map((row) => row.slug));
    const staleLiveVersions = [...liveVersions.keys()].filter((slug) => storedSlugs.has(slug));
    return { prior, ...plan, liveVersions, staleLiveVersions };
  }

  async write(
    m: EntityManager,
    site: Pick<SiteEntity, 'id' | 'hostname' | 'domain'>,
    observation: SiteObservation,
    step: TimelineStep,
  ): Promise<RecordedChange[]> {
    const at = observation.at;
    for (const row of step.undetected) await this.repository.markUndetected(m, row, at);
    await this.repository.sightVersions(m, site.id, step.versions, at);
    for (const version of step.superseded) await this.repository.supersedeVersion(m, site.id, version);
    await this.repository.replaceLiveVersions(m, site.id, step.liveVersions, step.staleLiveVersions);
    const fingerprintsVersion = observation.fingerprintsVersion ?? '';
    const ids = await this.repository.appendChanges(m, site.id, step.changes, fingerprintsVersion, at);
    return step.changes.map((change, i) => ({
      id: ids[i].id,
      hostname: site.hostname,
      domain: site.domain,
      slug: change.slug,
      name: change.name,
      kind: change.kind,
      fromVersion: change.fromVersion,
      toVersion: change.toVersion,
      fingerprintsVersion,
      at: at.getTime(),
    }));
  }

  published(changes: RecordedChange[]): void {
    if (changes.length > 0) this.onChanges?.(changes);
  }
}
