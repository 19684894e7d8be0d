import { DENOISE_THRESHOLD, packageOf, purlOf, versionedCpe, type Fingerprints } from '../../detection';
import { CREDIT_PRICES } from '../../plans/credit-prices';
import type { SiteEntity, SiteTechnologyEntity } from '../../storage/entities';
import { fingerprintsOf, type EngineSource } from '../fingerprints/engine-source';
import type { StoredSiteReader } from '../lookup/stored-site-reader';
import type { Caller } from '../platform/caller';
import type { MeteringService } from '../platform/metering.service';
import { parseList, type SiteIndexService } from '../site-index/site-index.service';
import { inVersionOrder } from '../vulns/version-compare';
import type { SbomComponent, SiteSbom, VulnerabilitiesOf } from './sbom.contract';

/**
 * GET /v2/sbom/: what the index knows a site runs, as SBOM components (one per technology and
 * detected version): the technologies still on the site, at the denoise threshold or above, with
 * their CPE (versioned when a version is known), purl (data/packages/package-map.json) and evidence.
 * Read-only, charged like a stored lookup (CREDIT_PRICES.sbom) when the site is in the index; a site
 * the index does not know is null (404, counted, not charged).
 */
export class SbomService {
  private readonly fingerprints: () => Fingerprints;

  constructor(
    private readonly storedSites: Pick<StoredSiteReader, 'site'>,
    private readonly siteIndex: Pick<SiteIndexService, 'currentTechnologies' | 'versionsNow'>,
    engines: Fingerprints | EngineSource,
    private readonly metering: MeteringService,
    private readonly now: () => Date = () => new Date(),
    /** The VEX section's data: none until the vulnerability import provides it. */
    private readonly vulnerabilitiesOf: VulnerabilitiesOf | null = null,
  ) {
    this.fingerprints = fingerprintsOf(engines);
  }

  async sbom(caller: Caller, url: string): Promise<SiteSbom | null> {
    const price = CREDIT_PRICES.sbom;
    return this.metering.run<SiteSbom | null>(
      caller,
      { minimumCost: 0, cost: (sbom) => (sbom ? price.credits : 0), reason: price.endpoint, readOnly: true },
      () => this.read(url),
    );
  }

  private async read(url: string): Promise<SiteSbom | null> {
    const site = await this.storedSites.site(url);
    if (!site) return null;
    const rows = await this.siteIndex.currentTechnologies(site.id);
    const versionsNow = await this.siteIndex.versionsNow(site.id);
    const fingerprints = this.fingerprints();
    const components = rows
      .filter((row) => row.live && row.confidence >= DENOISE_THRESHOLD)
      .flatMap((row) => componentsOf(site, row, versionsNow.get(row.slug) ?? [], fingerprints));
    return {
      url: siteUrl(site, '/'),
      hostname: site.hostname,
      lastAnalyzedAt: site.lastAnalyzedAt,
      generatedAt: this.now(),
      components,
      vulnerabilities: this.vulnerabilitiesOf ? await this.vulnerabilitiesOf(components) : null,
    };
  }
}

/**
 * One component per version on the site now (a theme's jQuery and a plugin's are two), its
 * occurrences the pages whose latest reading found that version; one without a version when none
 * is known.
 */
function componentsOf(
  site: SiteEntity,
  row: SiteTechnologyEntity,
  versionsNow: readonly { version: string; pages: string[] }[],
  fingerprints: Fingerprints,
): SbomComponent[] {
  const known = fingerprints.technologyBySlug(row.slug);
  const name = known?.name ?? row.name;
  const cpe = known?.cpe ?? null;
  const categories = (known?.categories ?? []).map((c) => c.name);
  const type = typeOf(name, cpe, known?.categories.map((c) => c.slug) ?? []);
  const pagesOf = (paths: readonly string[]) =>
    paths.filter((path) => path.startsWith('/')).map((path) => siteUrl(site, path));
  const versions: { version: string | null; pages: string[] }[] =
    versionsNow.length > 0
      ? inVersionOrder(versionsNow.map((v) => v.version)).map((version) => ({
          version,
          pages: versionsNow.find((v) => v.version === version)!.pages,
        }))
      : [{ version: null, pages: parseList(row.evidencePaths) }];
  return versions.map(({ version, pages }) => ({
    ref: version === null ? row.slug : `${row.slug}@${version}`,
    slug: row.slug,
    name,
    version,
    cpe,
    versionedCpe: cpe && version !== null ? versionedCpe(cpe, version) : null,
    purl: purlOf(name, version ?? ''),
    type,
    categories,
    confidence: row.confidence,
    firstSeenAt: row.firstSeenAt,
    lastSeenAt: row.confirmedAt,
    fingerprintsVersion: row.fingerprintsVersion,
    pages: pagesOf(pages),
  }));
}

function typeOf(name: string, cpe: string | null, categorySlugs: string[]): SbomComponent['type'] {
  if (cpe?.startsWith('cpe:2.3:o:')) return 'operating-system';
  if (packageOf(name)?.osv.ecosystem === 'npm' || categorySlugs.includes('javascript-libraries'))
    return 'library';
  if (categorySlugs.some((slug) => slug.includes('framework'))) return 'framework';
  return 'application';
}

function siteUrl(site: SiteEntity, path: string): string {
  return `${site.scheme ?? 'https'}://${site.hostname}${path}`;
}
