import { FAST_SETTINGS } from '../analysis-api/analysis-test-kit';
import { startTestService, TestService } from '../../helpers/test-service';
import {
  contactPage,
  ChangingSite,
  GENEROUS_FETCHES,
  JQUERY,
  LODASH,
  startChangingSite,
  wordpressHome,
} from './changing-site';

interface Change {
  id: number;
  domain: string;
  technology: string;
  kind: string;
  fromVersion?: string;
  toVersion?: string;
  at: number;
  fingerprintsVersion?: string;
}

interface TechnologyTimeline {
  slug: string;
  live: boolean;
  firstSeenAt: number;
  lastSeenAt: number;
  removedAt: number | null;
  evidencePaths: string[];
  versions: { version: string; firstSeenAt: number; lastSeenAt: number }[];
}

/**
 * The timeline and the change log on SQLite and (with TEST_DATABASE_URL) MariaDB, from a real site
 * on 127.0.0.1 whose served stack changes between analyses: WordPress upgraded, jQuery dropped, a
 * library added, the contact page failing, the Contact Form 7 plugin removed. A one-page analysis
 * and a failed fetch remove nothing they did not read.
 */
describe('technology timeline and change log', () => {
  let service: TestService;
  let site: ChangingSite;
  let apiKey: string;

  beforeAll(async () => {
    site = await startChangingSite({ '/': wordpressHome('6.4.2', JQUERY), '/contact': contactPage('5.8') });
    service = await startTestService({ ...FAST_SETTINGS, ...GENEROUS_FETCHES });
    ({ apiKey } = await service.createAccount({ plan: 'large', credits: 1000 }));
  });
  afterAll(async () => {
    await service?.stop();
    await site?.close();
  });

  const services = () => service.running.services;
  const version = () => services().engine.version;
  const feed = async (query = ''): Promise<Change[]> => {
    // The changes family allows 5 requests a second: each read here starts a window of its own.
    service.clock.advance(1000);
    const res = await service.request(`/v2/changes/?domains=${site.hostname}&limit=1000${query}`, {
      key: apiKey,
    });
    expect(res.status).toBe(200);
    return res.body.changes;
  };
  const timeline = async () => {
    service.clock.advance(1000);
    const res = await service.graphql(
      apiKey,
      `query ($domain: String!) { site(domain: $domain) { domain technologies {
         slug live firstSeenAt lastSeenAt removedAt evidencePaths versions { version firstSeenAt lastSeenAt } } } }`,
      { domain: site.hostname },
    );
    expect(res.body.errors).toBeUndefined();
    const technologies = res.body.data.site.technologies as TechnologyTimeline[];
    return new Map(technologies.map((t) => [t.slug, t]));
  };

  it('a first crawl adds what it found on each page, with the fingerprint version', async () => {
    const analysis = await services().analyzer.crawl(site.url);
    expect(analysis.ok).toBe(true);
    const changes = await feed();
    const added = new Map(changes.map((c) => [c.technology, c]));
    for (const slug of ['wordpress', 'jquery', 'contact-form-7']) expect(added.get(slug)?.kind).toBe('added');
    expect(added.get('jquery')).toMatchObject({ toVersion: '3.7.1', fingerprintsVersion: version() });
    expect(added.get('contact-form-7')?.toVersion).toBe('5.8');
    expect(new Set(changes.map((c) => c.kind))).toEqual(new Set(['added']));
    const t = await timeline();
    expect(t.get('jquery')).toMatchObject({ live: true, evidencePaths: ['/'], removedAt: null });
    expect(t.get('contact-form-7')).toMatchObject({ live: true, evidencePaths: ['/contact'] });
    expect(t.get('wordpress')!.evidencePaths.sort()).toEqual(['/', '/contact']);
    expect(t.get('wordpress')!.versions.map((v) => v.version)).toEqual(['6.4.2']);
  });

  it('a one-page analysis records the upgrade and what left the home page, not what it did not read', async () => {
    const before = (await feed()).length;
    site.serve('/', wordpressHome('6.5.0'));
    expect((await services().analyzer.analyzePage(site.url)).ok).toBe(true);
    const changes = (await feed()).slice(before);
    expect(changes.map((c) => [c.technology, c.kind, c.fromVersion, c.toVersion])).toEqual(
      expect.arrayContaining([
        ['wordpress', 'version', '6.4.2', '6.5.0'],
        ['jquery', 'removed', '3.7.1', undefined],
      ]),
    );
    // Contact Form 7 was found on /contact, which a one-page analysis does not read.
    expect(changes.find((c) => c.technology === 'contact-form-7')).toBeUndefined();
    const t = await timeline();
    expect(t.get('contact-form-7')).toMatchObject({ live: true, evidencePaths: ['/contact'] });
    expect(t.get('jquery')).toMatchObject({ live: false });
    expect(t.get('jquery')!.removedAt).toBeGreaterThan(0);
    const versions = t.get('wordpress')!.versions as {
      version: string;
      firstSeenAt: number;
      lastSeenAt: number;
    }[];
    expect(versions.map((v) => v.version)).toEqual(['6.4.2', '6.5.0']);
    expect(versions[1].firstSeenAt).toBeGreaterThanOrEqual(versions[0].lastSeenAt);
  });

  it('a crawl whose contact page fails adds the new library and removes nothing from that page', async () => {
    const before = (await feed()).length;
    site.serve('/', wordpressHome('6.5.0', LODASH));
    site.serve('/contact', 'fail');
    expect((await services().analyzer.crawl(site.url)).ok).toBe(true);
    const changes = (await feed()).slice(before);
    expect(changes.map((c) => [c.technology, c.kind])).toEqual([['lodash', 'added']]);
    expect((await timeline()).get('contact-form-7')).toMatchObject({ live: true });
  });

  it('a failed analysis changes nothing', async () => {
    const before = await feed();
    site.serve('/', 'fail');
    expect((await services().analyzer.analyzePage(site.url)).ok).toBe(false);
    expect((await services().analyzer.crawl(site.url)).ok).toBe(false);
    expect(await feed()).toEqual(before);
    expect((await timeline()).get('wordpress')).toMatchObject({ live: true });
  });

  it('a crawl that reads the contact page without the plugin removes it; found again, it is added again', async () => {
    const before = (await feed()).length;
    site.serve('/', wordpressHome('6.5.0', LODASH));
    site.serve('/contact', contactPage(null));
    expect((await services().analyzer.crawl(site.url)).ok).toBe(true);
    let changes = (await feed()).slice(before);
    expect(changes.map((c) => [c.technology, c.kind, c.fromVersion])).toEqual([
      ['contact-form-7', 'removed', '5.8'],
    ]);
    site.serve('/contact', contactPage('5.9'));
    expect((await services().analyzer.crawl(site.url)).ok).toBe(true);
    changes = (await feed()).slice(before + 1);
    expect(changes.map((c) => [c.technology, c.kind, c.toVersion])).toEqual([
      ['contact-form-7', 'added', '5.9'],
    ]);
    const t = await timeline();
    expect(t.get('contact-form-7')).toMatchObject({ live: true, evidencePaths: ['/contact'] });
    expect(t.get('contact-form-7')!.versions.map((v) => v.version)).toEqual(['5.8', '5.9']);
  });

  it('the change rows were written with the index: ids grow, times never go back', async () => {
    const changes = await feed();
    for (let i = 1; i < changes.length; i++) {
      expect(changes[i].id).toBeGreaterThan(changes[i - 1].id);
      expect(changes[i].at).toBeGreaterThanOrEqual(changes[i - 1].at);
    }
  });
});
