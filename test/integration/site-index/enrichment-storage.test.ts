import { DataSource } from 'typeorm';
import type { DetectedTechnology } from '../../../src/detection';
import type { SiteEnrichment } from '../../../src/enrichment';
import {
  SiteEnrichmentEntity,
  SiteEntity,
  SiteKeywordEntity,
  SiteLanguageEntity,
  SiteTechnologyEntity,
} from '../../../src/storage/entities';
import { ENTITIES } from '../../../src/storage/entities';
import { MIGRATIONS } from '../../../src/storage/migrations';
import { keywordTokens } from '../../../src/services/site-index/site-index.service';
import { setsMaskFor } from '../../../src/services/analysis/site-sets';
import { createDataSource } from '../../../ormconfig';
import { createTestDatabase, TestDatabase } from '../../helpers/test-database';
import { startTestService, TestService } from '../../helpers/test-service';

function technology(slug: string, version: string): DetectedTechnology {
  return {
    slug,
    name: slug,
    version,
    versions: version ? [version] : [],
    confidence: 100,
    icon: '',
    website: '',
    categories: [{ id: 1, slug: 'cms', name: 'CMS', priority: 1 }],
  } as unknown as DetectedTechnology;
}

function enrichment(overrides: Partial<SiteEnrichment> = {}): SiteEnrichment {
  return {
    meta: { title: 'Acme Robotics' },
    company: { companyName: 'Acme Robotics GmbH', industry: 'Manufacturing', companySize: '51-200' },
    phone: { phone: ['+4930123456'] },
    email: {},
    contact: {},
    social: { linkedin: ['acme-robotics'] },
    locale: { language: 'de', ipCountry: 'DE' },
    security: {},
    trackers: {},
    keywords: { keywords: ['Industrial robots', 'Café automation', 'x'] },
    signals: {},
    events: {},
    ...overrides,
  };
}

describe('the index stores what an analysis learned beyond technologies', () => {
  let service: TestService;

  beforeAll(async () => {
    service = await startTestService();
  });
  afterAll(async () => {
    await service?.stop();
  });

  it('keeps version keys, languages, the enriched record and the columns lists filter on', async () => {
    const { siteIndex, db } = service.running.services;
    const at = new Date('2026-11-01T10:00:00Z');
    await siteIndex.record({
      url: 'https://www.acme-robotics.test/',
      pages: [
        { url: 'https://www.acme-robotics.test/', isRoot: true, technologies: [], languages: ['de', 'en'] },
      ],
      technologies: [technology('wordpress', '6.4.10'), technology('jquery', '')],
      hostnames: [],
      at,
    });
    await siteIndex.recordEnrichment(
      'https://acme-robotics.test/about',
      { enrichment: enrichment(), country: 'de' },
      at,
    );

    const site = await db.manager.findOneByOrFail(SiteEntity, { hostname: 'acme-robotics.test' });
    expect(site).toMatchObject({
      industry: 'Manufacturing',
      companySize: '51-200',
      country: 'DE',
      languageCount: 2,
    });
    // The rank is the worker's (observed page views), whose start-up refresh may finish during the test.
    expect([null, 'observed']).toContain(site.rankSource);
    expect(site.setsMask).toBe(
      setsMaskFor(['meta', 'company', 'phone', 'social', 'locale', 'keywords', 'events']),
    );
    expect(site.enrichedAt?.toISOString()).toBe(at.toISOString());
    expect(site.crawlAttemptedAt?.toISOString()).toBe(at.toISOString());

    const technologies = await db.manager.find(SiteTechnologyEntity, {
      where: { siteId: site.id },
      order: { slug: 'ASC' },
    });
    expect(technologies.map((t) => [t.slug, t.versionKey])).toEqual([
      ['jquery', ''],
      ['wordpress', '000006.000004.000010'],
    ]);
    const languages = await db.manager.find(SiteLanguageEntity, {
      where: { siteId: site.id },
      order: { language: 'ASC' },
    });
    expect(languages.map((l) => l.language)).toEqual(['de', 'en']);
    const keywords = await db.manager.find(SiteKeywordEntity, {
      where: { siteId: site.id },
      order: { keyword: 'ASC' },
    });
    expect(keywords.map((k) => k.keyword)).toEqual(['automation', 'cafe', 'industrial', 'robots']);

    const stored = await siteIndex.enrichmentOf(site);
    expect(stored?.company.companyName).toBe('Acme Robotics GmbH');
    // Events come from the site row, never from what was stored.
    expect(stored?.events).toEqual({
      createdAt: Math.floor(at.getTime() / 1000),
      updatedAt: Math.floor(at.getTime() / 1000),
      crawlAttemptedAt: Math.floor(at.getTime() / 1000),
    });
    const row = await db.manager.findOneByOrFail(SiteEnrichmentEntity, { siteId: site.id });
    expect(JSON.parse(row.data)).not.toHaveProperty('events');
  });

  it('replaces the previous record: a field no longer found disappears, version keys follow new versions', async () => {
    const { siteIndex, db } = service.running.services;
    const later = new Date('2026-11-20T10:00:00Z');
    await siteIndex.record({
      url: 'https://acme-robotics.test/',
      pages: [{ url: 'https://acme-robotics.test/', isRoot: true, technologies: [], languages: ['de'] }],
      technologies: [technology('wordpress', '6.5')],
      hostnames: [],
      at: later,
    });
    await siteIndex.recordEnrichment(
      'https://acme-robotics.test/',
      { enrichment: enrichment({ company: {}, keywords: {} }) },
      later,
    );
    const site = await db.manager.findOneByOrFail(SiteEntity, { hostname: 'acme-robotics.test' });
    expect(site).toMatchObject({ industry: null, companySize: null, country: 'DE' });
    expect(await db.manager.countBy(SiteKeywordEntity, { siteId: site.id })).toBe(0);
    const wordpress = await db.manager.findOneByOrFail(SiteTechnologyEntity, {
      siteId: site.id,
      slug: 'wordpress',
    });
    expect(wordpress.versionKey).toBe('000006.000005');
    expect((await siteIndex.enrichmentOf(site))?.company).toEqual({});
  });

  it('does not create a site from an enrichment or an attempt alone', async () => {
    const { siteIndex, db } = service.running.services;
    await siteIndex.recordEnrichment(
      'https://never-analysed.test/',
      { enrichment: enrichment() },
      new Date(),
    );
    await siteIndex.recordAttempt('https://never-analysed.test/', new Date());
    expect(await db.manager.countBy(SiteEntity, { hostname: 'never-analysed.test' })).toBe(0);
  });
});

describe('keyword tokens', () => {
  it('are single folded a-z0-9 words of 2 to 60 characters, each once', () => {
    expect(keywordTokens(['Crème brûlée', 'crème', 'a', 'ab', 'x'.repeat(61), 'AI/ML tools'])).toEqual([
      'creme',
      'brulee',
      'ab',
      'ai',
      'ml',
      'tools',
    ]);
  });
});

describe('the storage migration backfills an existing index', () => {
  let database: TestDatabase;

  beforeAll(async () => {
    database = await createTestDatabase();
  });
  afterAll(async () => {
    await database?.drop();
  });

  it('computes version keys and language rows for rows written before it', async () => {
    const before = MIGRATIONS.findIndex((m) => m.name === 'SiteEnrichmentStorage1763920000000');
    expect(before).toBeGreaterThan(0);
    const full = createDataSource(database.url);
    const early = new DataSource({
      ...full.options,
      entities: ENTITIES,
      migrations: MIGRATIONS.slice(0, before),
    } as typeof full.options);
    await early.initialize();
    await early.runMigrations();
    await early.query(
      `INSERT INTO sites (hostname, domain, tld, is_subdomain, language, languages, hits, first_seen_at, last_analyzed_at)
       VALUES ('old.test', 'old.test', '.test', 0, 'fr', '["fr","fr-ca"]', 1, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000')`,
    );
    const [{ id }] = (await early.query(`SELECT id FROM sites WHERE hostname = 'old.test'`)) as {
      id: number;
    }[];
    await early.query(
      `INSERT INTO site_technologies (site_id, slug, name, version, versions, confidence, root_path, first_seen_at, confirmed_at)
       VALUES (?, 'drupal', 'Drupal', '10.1', '["10.1"]', 100, 1, '2026-01-01 00:00:00.000', '2026-01-01 00:00:00.000')`,
      [id],
    );
    await early.destroy();

    await full.initialize();
    await full.runMigrations();
    const technologies = (await full.query('SELECT version_key FROM site_technologies')) as {
      version_key: string;
    }[];
    expect(technologies.map((t) => t.version_key)).toEqual(['000010.000001']);
    const languages = (await full.query('SELECT language FROM site_languages ORDER BY language')) as {
      language: string;
    }[];
    expect(languages.map((l) => l.language)).toEqual(['fr', 'fr-ca']);
    const [site] = (await full.query('SELECT language_count FROM sites')) as { language_count: number }[];
    expect(Number(site.language_count)).toBe(2);
    await full.destroy();
  });
});
