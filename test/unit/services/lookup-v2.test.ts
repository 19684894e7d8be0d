import { FieldError, ValidationError } from '../../../src/errors';
import { CREDIT_PRICES } from '../../../src/plans/credit-prices';
import { setsOf } from '../../../src/services/analysis/analysis.contract';
import { LookupV2Service, type LookupV2Input } from '../../../src/services/lookup/lookup-v2.service';
import { LookupV2Request } from '../../../src/services/lookup/lookup.contract';
import { StoredSiteReader } from '../../../src/services/lookup/stored-site-reader';
import { newMeter, type Caller } from '../../../src/services/platform/caller';
import { parseRequest } from '../../../src/services/platform/request-schema';
import type {
  SiteEntity,
  SiteMonthTechnologyEntity,
  SiteTechnologyEntity,
} from '../../../src/storage/entities';

/**
 * GET /v2/lookup/'s rules without HTTP or a database: the request schema (urls parsed and bounded,
 * the defaults), and LookupV2Service over the real StoredSiteReader on fake repositories: the
 * freshness rule deciding between the stored answer and a live analysis or crawl, the age window
 * and denoise applied to the stored technologies, the field sets and the monthly form.
 */

const parse = (args: object) => parseRequest(LookupV2Request, args);
const DAY = 86_400_000;
const NOW = Date.now();

function refusal(args: object): FieldError {
  try {
    parse(args);
  } catch (error) {
    if (error instanceof FieldError) return error;
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(args)}`);
}

describe('the Lookup v2 request schema (LookupV2Request)', () => {
  it('fills the defaults: index answer, crawl when not stored, denoised, squashed, 0 to 2 months', () => {
    expect(parse({ urls: ['example.com'] })).toEqual({
      urls: ['http://example.com/'],
      live: false,
      recursive: true,
      denoise: true,
      minAge: 0,
      maxAge: 2,
      squash: true,
    });
  });

  it('parses each URL as users type it, and refuses a bad one naming its index', () => {
    expect(parse({ urls: ['https://Example.com/a', 'beta.de'] }).urls).toEqual([
      'https://example.com/a',
      'http://beta.de/',
    ]);
    const bad = refusal({ urls: ['example.com', 'ftp://example.com'] });
    expect(bad.field).toBe('urls');
    expect(bad.message).toMatch(/^urls\[1\]/);
  });

  it('takes one to ten URLs', () => {
    const ten = Array.from({ length: 10 }, (_, i) => `site${i}.com`);
    expect(parse({ urls: ten }).urls).toHaveLength(10);
    expect(refusal({ urls: [...ten, 'eleven.com'] }).message).toBe('urls must hold 1 to 10 values');
    expect(refusal({ urls: [] }).message).toBe('urls must hold 1 to 10 values');
    expect(refusal({}).message).toBe('urls is required');
  });

  it.each([
    ['minAge', 'min_age', -1, 'min_age must be between 0 and 11'],
    ['minAge', 'min_age', 12, 'min_age must be between 0 and 11'],
    ['maxAge', 'max_age', 0, 'max_age must be between 1 and 12'],
    ['maxAge', 'max_age', 13, 'max_age must be between 1 and 12'],
    ['debugEmail', 'debug_email', 'not-an-email', 'debug_email must be an email address'],
    ['sets', 'sets', ['meta', 'colour'], 'sets[1]: unknown field set "colour"'],
  ])('refuses %s (REST %s) = %p', (field, rest, value, message) => {
    const error = refusal({ urls: ['example.com'], [field]: value });
    expect(error.field).toBe(field);
    expect(error.named(rest).message.startsWith(message)).toBe(true);
  });

  it('reads sets: names, or all for every set', () => {
    expect(setsOf(parse({ urls: ['a.com'], sets: ['meta', 'email', 'meta'] }).sets)).toEqual([
      'meta',
      'email',
    ]);
    expect(setsOf(parse({ urls: ['a.com'], sets: ['all'] }).sets)).toContain('security');
  });
});

/** A stored site, last analysed `daysAgo` days ago. */
function site(hostname: string, daysAgo: number, extra: Partial<SiteEntity> = {}): SiteEntity {
  return {
    id: hostname.length,
    hostname,
    hits: 5,
    lastAnalyzedAt: new Date(NOW - daysAgo * DAY),
    trafficRank: 42,
    ...extra,
  } as SiteEntity;
}

const technology = (slug: string, confidence: number, daysAgo: number) =>
  ({
    slug,
    name: slug.toUpperCase(),
    versions: '["1.0"]',
    confidence,
    confirmedAt: new Date(NOW - daysAgo * DAY),
  }) as SiteTechnologyEntity;

interface Fakes {
  sites: Map<string, SiteEntity>;
  technologies: Map<number, SiteTechnologyEntity[]>;
  months: SiteMonthTechnologyEntity[];
  enrichment: Record<string, unknown> | null;
  reads: number;
  analysed: string[];
  enqueued: { urls: string[]; options: Record<string, unknown> }[];
  metered: { minimumCost: number; readOnly: boolean; charged: number }[];
}

function build(): { service: LookupV2Service; fakes: Fakes } {
  const fakes: Fakes = {
    sites: new Map(),
    technologies: new Map(),
    months: [],
    enrichment: null,
    reads: 0,
    analysed: [],
    enqueued: [],
    metered: [],
  };
  const repository = {
    site: (row: Record<string, unknown>) => row as unknown as SiteEntity,
    currentTechnologies: async (siteId: number) => {
      fakes.reads++;
      return fakes.technologies.get(siteId) ?? [];
    },
    monthTechnologies: async (_siteId: number, from: string, to: string) =>
      fakes.months.filter((m) => m.month >= from && m.month <= to),
    confirmedAt: async () => new Map<string, Date>(),
  };
  const index = {
    siteRows: { load: async (hostname: string) => fakes.sites.get(hostname) },
    enrichmentOf: async () => (fakes.enrichment ? structuredClone(fakes.enrichment) : null),
  };
  const fingerprints = {
    technologyBySlug: (slug: string) =>
      slug === 'wordpress'
        ? {
            name: 'WordPress',
            cpe: 'cpe:2.3:a:wordpress:wordpress',
            categories: [{ id: 1, slug: 'cms', name: 'CMS' }],
          }
        : undefined,
  };
  const reader = new StoredSiteReader(repository as never, index as never, fingerprints as never);
  const analyzer = {
    analyzePage: async (url: string) => {
      fakes.analysed.push(url);
      fakes.sites.set(new URL(url).hostname, site(new URL(url).hostname, 0));
      return { ok: true, siteUrl: url, errors: [] };
    },
  };
  const analysis = {
    // Private targets are refused there (ALLOW_PRIVATE_TARGETS); these names are all public.
    assertFetchable: async () => undefined,
    enqueueAnalyses: async (_caller: Caller, urls: string[], options: Record<string, unknown>) => {
      fakes.enqueued.push({ urls, options });
    },
  };
  const metering = {
    run: async <T>(
      _caller: Caller,
      call: { minimumCost: number; readOnly: boolean; cost: (r: T) => number },
      work: () => Promise<T>,
    ) => {
      const result = await work();
      fakes.metered.push({
        minimumCost: call.minimumCost,
        readOnly: call.readOnly,
        charged: call.cost(result),
      });
      return result;
    },
  };
  const callbacks = { validateUrl: async (url: string) => url };
  const service = new LookupV2Service(
    analysis as never,
    analyzer as never,
    reader,
    metering as never,
    callbacks as never,
  );
  return { service, fakes };
}

const caller: Caller = {
  principal: { accountId: 1, keyId: 1, plan: 'business', isDemo: false },
  requestId: 'test',
  meter: newMeter(),
};

/** The service's input as the resolver makes it from the request. */
function input(args: Record<string, unknown>): LookupV2Input {
  const parsed = parse(args);
  return {
    urls: parsed.urls,
    live: parsed.live,
    recursive: parsed.recursive,
    callbackUrl: parsed.callbackUrl,
    sets: setsOf(parsed.sets),
    denoise: parsed.denoise,
    squash: parsed.squash,
    window: { minAge: parsed.minAge, maxAge: parsed.maxAge },
  };
}

describe('LookupV2Service: stored or live', () => {
  it('refuses several URLs without recursion, and a window that is empty', async () => {
    const { service } = build();
    await expect(
      service.lookup(caller, input({ urls: ['a.com', 'b.com'], recursive: false })),
    ).rejects.toThrow(new ValidationError('urls', 'urls must hold exactly one URL when recursive is false'));
    await expect(service.lookup(caller, input({ urls: ['a.com'], minAge: 2, maxAge: 2 }))).rejects.toThrow(
      new ValidationError('min_age', 'min_age must be less than max_age'),
    );
  });

  it('answers a site analysed inside the window from the index: read-only, one answer charged, no analysis', async () => {
    const { service, fakes } = build();
    fakes.sites.set('alpha.com', site('alpha.com', 20));
    fakes.technologies.set(9, [technology('wordpress', 100, 20)]);
    const [answer] = await service.lookup(caller, input({ urls: ['www.alpha.com'] }));
    expect(answer).toMatchObject({ url: 'http://www.alpha.com/', state: 'FOUND', months: null });
    expect(answer.technologies).toEqual([
      {
        slug: 'wordpress',
        name: 'WordPress',
        cpe: 'cpe:2.3:a:wordpress:wordpress',
        versionedCpes: [], // the fixture's cpe is not a whole CPE 2.3 formatted string
        versions: ['1.0'],
        categories: [{ id: 1, slug: 'cms', name: 'CMS' }],
        trafficRank: 42,
        confirmedAt: Math.floor((NOW - 20 * DAY) / 1000),
        confidence: 100,
      },
    ]);
    const price = CREDIT_PRICES.lookupV2.credits;
    expect(fakes.metered).toEqual([{ minimumCost: price, readOnly: true, charged: price }]);
    expect(fakes.analysed).toEqual([]);
  });

  it('counts a site analysed before max_age months as unseen: analysed now (recursive=false)', async () => {
    const { service, fakes } = build();
    fakes.sites.set('alpha.com', site('alpha.com', 70));
    const [answer] = await service.lookup(
      caller,
      input({ urls: ['alpha.com'], recursive: false, maxAge: 2 }),
    );
    expect(answer.state).toBe('ANALYSED');
    expect(fakes.analysed).toEqual(['http://alpha.com/']);
    expect(fakes.metered[0]).toMatchObject({ readOnly: false, charged: CREDIT_PRICES.lookupV2.credits });
    // The same site within a wider window is stored.
    const [stored] = await service.lookup(
      caller,
      input({ urls: ['alpha.com'], recursive: false, maxAge: 3 }),
    );
    expect(stored.state).toBe('FOUND');
  });

  it('counts a site analysed after min_age months ago as unseen too', async () => {
    const { service, fakes } = build();
    fakes.sites.set('alpha.com', site('alpha.com', 3));
    const [answer] = await service.lookup(
      caller,
      input({ urls: ['alpha.com'], minAge: 1, callbackUrl: 'https://cb.test/' }),
    );
    expect(answer.state).toBe('ACCEPTED');
    expect(fakes.enqueued[0].urls).toEqual(['http://alpha.com/']);
  });

  it('never answers from the index with live=true', async () => {
    const { service, fakes } = build();
    fakes.sites.set('alpha.com', site('alpha.com', 1));
    const [answer] = await service.lookup(
      caller,
      input({ urls: ['alpha.com'], live: true, recursive: false }),
    );
    expect(answer.state).toBe('ANALYSED');
    expect(fakes.analysed).toHaveLength(1);
  });

  it('crawls unseen sites (recursive=true) only with a callback_url, naming them, charged with their jobs', async () => {
    const { service, fakes } = build();
    fakes.sites.set('alpha.com', site('alpha.com', 1));
    await expect(service.lookup(caller, input({ urls: ['alpha.com', 'new.com'] }))).rejects.toThrow(
      /^callback_url is required: http:\/\/new\.com\/ has no stored result/,
    );
    const answers = await service.lookup(
      caller,
      input({ urls: ['alpha.com', 'new.com', 'alpha.com'], callbackUrl: 'https://cb.test/' }),
    );
    expect(answers.map((a) => [a.url, a.state])).toEqual([
      ['http://alpha.com/', 'FOUND'],
      ['http://new.com/', 'ACCEPTED'],
    ]);
    expect(fakes.enqueued).toEqual([
      {
        urls: ['http://new.com/'],
        options: expect.objectContaining({ form: 'lookup-v2', callbackUrl: 'https://cb.test/' }),
      },
    ]);
    // Affordability covers the stored answer and the crawl; only the stored answer is charged here.
    expect(fakes.metered[0]).toMatchObject({
      minimumCost: CREDIT_PRICES.lookupV2.credits + CREDIT_PRICES.lookupV2Crawl.credits,
      readOnly: false,
      charged: CREDIT_PRICES.lookupV2.credits,
    });
  });
});

describe('LookupV2Service: what a stored answer holds', () => {
  it('keeps the technologies confirmed inside the window, and at 50% confidence or more unless denoise=false', async () => {
    const { service, fakes } = build();
    fakes.sites.set('alpha.com', site('alpha.com', 1));
    fakes.technologies.set(9, [
      technology('wordpress', 100, 1),
      technology('jquery', 30, 1),
      technology('php', 100, 100),
    ]);
    const denoised = await service.lookup(caller, input({ urls: ['alpha.com'] }));
    expect(denoised[0].technologies.map((t) => t.slug)).toEqual(['wordpress']);
    const all = await service.lookup(caller, input({ urls: ['alpha.com'], denoise: false, maxAge: 12 }));
    expect(all[0].technologies.map((t) => t.slug)).toEqual(['wordpress', 'jquery', 'php']);
    // One read of the site's technologies served both windows; a new analysis (hits) reads again.
    expect(fakes.reads).toBe(1);
    fakes.sites.set('alpha.com', site('alpha.com', 1, { hits: 6 }));
    await service.lookup(caller, input({ urls: ['alpha.com'] }));
    expect(fakes.reads).toBe(2);
  });

  it('adds the requested field sets only, with trafficLevel from the current rank', async () => {
    const { service, fakes } = build();
    fakes.sites.set('alpha.com', site('alpha.com', 1, { trafficRank: 5 }));
    fakes.enrichment = {
      meta: { title: 'Alpha' },
      email: { email: ['info@alpha.com'] },
      signals: { trafficLevel: 'low' },
    };
    const [plain] = await service.lookup(caller, input({ urls: ['alpha.com'] }));
    expect(plain).not.toHaveProperty('title');
    const [meta] = await service.lookup(caller, input({ urls: ['alpha.com'], sets: ['meta'] }));
    expect(meta).toMatchObject({ title: 'Alpha' });
    expect(meta).not.toHaveProperty('email');
    const [signals] = await service.lookup(caller, input({ urls: ['alpha.com'], sets: ['signals'] }));
    expect(signals.trafficLevel).not.toBe('low');
    expect(signals.trafficLevel).toBeDefined();
  });

  it('answers month by month with squash=false', async () => {
    const { service, fakes } = build();
    fakes.sites.set('alpha.com', site('alpha.com', 1));
    const month = new Date(NOW).toISOString().slice(0, 7);
    fakes.months = [
      {
        siteId: 9,
        month,
        slug: 'wordpress',
        name: 'WordPress',
        categories: '[]',
        versions: '["6"]',
        hits: 3,
        confidence: 100,
      },
      {
        siteId: 9,
        month,
        slug: 'jquery',
        name: 'jQuery',
        categories: '[]',
        versions: '[]',
        hits: 3,
        confidence: 20,
      },
    ] as SiteMonthTechnologyEntity[];
    const [answer] = await service.lookup(caller, input({ urls: ['alpha.com'], squash: false }));
    expect(answer.technologies).toEqual([]);
    expect(answer.months).toEqual([
      {
        monthYear: `${month.slice(5, 7)}-${month.slice(0, 4)}`,
        technologies: [expect.objectContaining({ slug: 'wordpress' })],
      },
    ]);
  });
});
