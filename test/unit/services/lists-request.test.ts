import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FieldError, PlanError, RateLimitError, ValidationError } from '../../../src/errors';
import { loadConfig } from '../../../src/platform/config';
import { BUILT_IN_PLANS } from '../../../src/plans/plan-catalog';
import { ListCreateRequest } from '../../../src/services/lists/lists.contract';
import { toListRequest } from '../../../src/services/lists/lead-list-request';
import { insertCalculatingList, LeadListService } from '../../../src/services/lists/lead-list.service';
import { newMeter, type Caller } from '../../../src/services/platform/caller';
import { parseRequest } from '../../../src/services/platform/request-schema';
import { Database } from '../../../src/storage/database';
import { AccountEntity } from '../../../src/storage/entities';
import { LeadListEntity } from '../../../src/storage/entities/lead-list.entity';
import { createTestDatabase, type TestDatabase } from '../../helpers/test-database';

/**
 * POST /v2/lists's rules without HTTP: the request schema (every bound, default and message naming
 * the field, the conflicting options), then what LeadListService.create checks after the plan
 * check, against a fresh database (SQLite, or MariaDB with TEST_DATABASE_URL) and fakes for the
 * catalogue, the callback check and the job queue.
 */

const parse = (body: object) => parseRequest(ListCreateRequest, body);
const WP = { technologies: [{ slug: 'wordpress' }] };

/** The FieldError a body is refused with (fails the test when it is accepted). */
function refusal(body: object): FieldError {
  try {
    parse(body);
  } catch (error) {
    if (error instanceof FieldError) return error;
    throw error;
  }
  throw new Error(`accepted: ${JSON.stringify(body)}`);
}

const many = (n: number, make: (i: number) => unknown) => Array.from({ length: n }, (_, i) => make(i));

describe('the lists request schema (ListCreateRequest)', () => {
  it('fills every default the contract gives', () => {
    expect(parse(WP)).toEqual({
      technologies: [{ slug: 'wordpress' }],
      matchCountryLanguage: true,
      matchTechnologies: 'or',
      rootPath: false,
      subsetSlice: 0,
      minAge: 0,
      maxAge: 3,
      subdomains: 'include',
      excludeNoTraffic: false,
      excludeMultilingual: false,
      possiblyAffected: false,
      format: 'csv',
    });
  });

  it('treats null and empty values as absent (GraphQL nulls, REST empties)', () => {
    expect(parse({ ...WP, subset: null, format: '', callbackUrl: null })).toEqual(parse(WP));
  });

  it.each([
    ['subset', 'subset must be between 1 and 10000000', 0],
    ['subset', 'subset must be between 1 and 10000000', 10_000_001],
    ['subset', 'subset must be a whole number', 2.5],
    ['subsetSlice', 'subsetSlice must be between 0 and 4', -1],
    ['subsetSlice', 'subsetSlice must be between 0 and 4', 5],
    ['minAge', 'minAge must be between 0 and 11', -1],
    ['minAge', 'minAge must be between 0 and 11', 12],
    ['maxAge', 'maxAge must be between 1 and 12', 0],
    ['maxAge', 'maxAge must be between 1 and 12', 13],
    ['fromDate', 'fromDate must be between 0 and 2147483647', -1],
    ['fromDate', 'fromDate must be between 0 and 2147483647', 2_147_483_648],
    ['fromDate', 'fromDate must be a whole number', '2024-01-01'],
    ['rootPath', 'rootPath must be true or false', 'yes'],
    ['format', 'format must be one of csv, json', 'xml'],
    ['subdomains', 'subdomains must be one of include, exclude, merge', 'only'],
    ['matchTechnologies', 'matchTechnologies must be one of or, and, not', 'xor'],
    ['callbackUrl', 'callbackUrl must be at most 2048 characters', 'x'.repeat(2049) as unknown],
    ['excludeListId', 'excludeListId must be a list id (lst_…)', 'list-1'],
    ['baseListId', 'baseListId must be a list id (lst_…)', 'lst_UPPER'],
  ])('refuses %s: "%s"', (field, message, value) => {
    const error = refusal({ ...WP, [field]: value });
    expect(error.field).toBe(field);
    expect(error.message).toBe(message);
  });

  it.each([
    [
      'technologies',
      'one too many',
      many(101, (i) => ({ slug: `t${i}` })),
      'technologies must hold at most 100 values',
    ],
    ['categories', 'one too many', many(21, (i) => `c${i}`), 'categories must hold at most 20 values'],
    ['keywords', 'one too many', many(101, (i) => `k${i}`), 'keywords must hold at most 100 values'],
    ['languages', 'one too many', many(101, () => 'en'), 'languages must hold at most 100 values'],
    ['countries', 'DEU', ['DEU'], 'countries[0] must be a two-letter country code'],
    ['languages', 'english', ['english'], 'languages[0] must be an ISO 639-1 code (xx or xx-yy)'],
    ['tlds', '.', ['.'], 'tlds[0] must be a top-level domain such as .com'],
    ['keywords', 'shop!', ['shop!'], "keywords[0] must be a-z0-9 letters, optionally after 'not '"],
    ['categories', 'CMS stuff', ['CMS stuff'], 'categories[0] must be a category slug'],
    ['companySizes', '7', ['7'], 'companySizes[0] must be a size code'],
    ['requiredSets', 'colour', ['colour'], 'requiredSets[0]: unknown field set "colour"'],
    ['sets', 'colour second', ['email', 'colour'], 'sets[1]: unknown field set "colour"'],
    [
      'technologies',
      'Word Press',
      [{ slug: 'Word Press' }],
      'technologies[0].slug must be a technology slug',
    ],
    ['technologies', 'a bare string', ['wordpress'], 'technologies[0] must be an object with a slug'],
    [
      'technologies',
      'version latest',
      [{ slug: 'wordpress', version: 'latest' }],
      'technologies[0].version must be a version',
    ],
    [
      'technologies',
      'operator >',
      [{ slug: 'wordpress', version: '5', operator: '>' }],
      'technologies[0].operator must be one of =, >=, <=',
    ],
  ])('refuses %s (%s), naming the item', (field, _label, value, start) => {
    const error = refusal({ ...WP, [field]: value });
    expect(error.field).toBe(field);
    expect(error.message.startsWith(start)).toBe(true);
  });

  it('accepts each list at its bound', () => {
    expect(parse({ technologies: many(100, (i) => ({ slug: `t${i}` })) }).technologies).toHaveLength(100);
    expect(parse({ categories: many(20, (i) => `c${i}`) }).categories).toHaveLength(20);
    expect(parse({ ...WP, subset: 10_000_000, subsetSlice: 4, minAge: 11, maxAge: 12 })).toMatchObject({
      subset: 10_000_000,
      subsetSlice: 4,
    });
  });

  it('refuses the conflicting options, naming the field', () => {
    expect(refusal({}).message).toBe(
      'technologies: technologies, categories or vulnerabilities must name at least one technology',
    );
    expect(refusal({ technologies: [], categories: [] }).field).toBe('technologies');
    const ages = refusal({ ...WP, minAge: 3, maxAge: 3 });
    expect([ages.field, ages.message]).toEqual(['minAge', 'minAge must be lower than maxAge']);
    const same = refusal({ ...WP, excludeListId: 'lst_abc', baseListId: 'lst_abc' });
    expect([same.field, same.message]).toEqual(['excludeListId', 'excludeListId and baseListId must differ']);
    const operator = refusal({ technologies: [{ slug: 'wordpress', operator: '>=' }] });
    expect(operator.message).toBe('technologies[0].operator needs a version');
    const twice = refusal({ technologies: [{ slug: 'wordpress' }, { slug: 'WordPress ' }] });
    expect(twice.message).toBe('technologies[1].slug wordpress is given twice');
  });

  it('names the field as the REST caller does (FieldError.named)', () => {
    expect(refusal({ ...WP, minAge: 12 }).named('min_age').message).toBe('min_age must be between 0 and 11');
  });

  it('normalises values: case, leading dots, repeats, size codes, `all` sets, numeric versions', () => {
    const parsed = parse({
      technologies: [{ slug: ' WordPress', version: 5, operator: '>=' }],
      countries: ['de', 'DE', 'at'],
      tlds: ['COM', '.de'],
      keywords: ['Shop', 'not Blog'],
      companySizes: ['5000', '10001'],
      sets: ['all'],
    });
    expect(parsed).toMatchObject({
      technologies: [{ slug: 'wordpress', version: '5', operator: '>=' }],
      countries: ['DE', 'AT'],
      tlds: ['.com', '.de'],
      keywords: ['shop', 'not blog'],
      companySizes: ['1001-5000', '10001+'],
    });
    const request = toListRequest(parsed);
    expect(request.sets).toEqual(expect.arrayContaining(['email', 'meta', 'social']));
    expect(request.technologies).toEqual([
      { slug: 'wordpress', operator: '>=', version: '5', explicit: true },
    ]);
    expect(toListRequest(parse(WP)).technologies[0]).toMatchObject({ operator: '=', version: null });
  });
});

describe('LeadListService.create: the checks after the request schema', () => {
  let database: TestDatabase;
  let db: Database;
  let dir: string;
  let accounts = 0;
  const enqueued: unknown[] = [];

  const fingerprints = {
    technologyBySlug: (slug: string) =>
      ['wordpress', 'drupal', 'joomla'].includes(slug) ? { slug, name: slug, categories: [] } : undefined,
    categoryBySlug: (slug: string) => (slug === 'cms' ? { slug, name: 'CMS' } : undefined),
    technologiesInCategory: (slug: string) =>
      slug === 'cms' ? ['wordpress', 'drupal', 'joomla'].map((s) => ({ slug: s })) : [],
  };
  const callbacks = {
    validateUrl: async (url: string, parameter: string) => {
      if (!url.startsWith('https://')) throw new ValidationError(parameter, `${parameter} must be https`);
      return url;
    },
  };

  function service(settings: Record<string, string> = {}): LeadListService {
    const config = loadConfig({ LISTS_DIR: dir, LOG_LEVEL: 'silent', ...settings });
    const queue = { enqueue: async (_m: unknown, _kind: string, payload: unknown) => enqueued.push(payload) };
    return new LeadListService(
      db,
      queue as never,
      callbacks as never,
      {} as never,
      {} as never,
      fingerprints as never,
      config,
      BUILT_IN_PLANS,
    );
  }

  /** A caller on a new account of that plan (lists belong to accounts: a foreign key). */
  async function callerOn(plan: string): Promise<Caller> {
    const { identifiers } = await db.manager.insert(AccountEntity, {
      name: `Account ${++accounts}`,
      email: `a${accounts}@lists.test`,
      plan,
      credits: 0,
      signingSecret: null,
      isDemo: false,
      createdAt: new Date(),
    });
    const accountId = Number(identifiers[0].id);
    return {
      principal: { accountId, keyId: accountId, plan, isDemo: false },
      requestId: 'test',
      meter: newMeter(),
    };
  }

  /** A list of the caller's in the given state, made as the service makes them. */
  async function listOf(caller: Caller, status: LeadListEntity['status'], excludeListIds: string[] = []) {
    const id = `lst_${Math.random().toString(16).slice(2, 14)}`;
    const request = { ...toListRequest(parse(WP)), excludeListIds };
    await db.transaction((m) =>
      insertCalculatingList(m, {
        id,
        accountId: caller.principal.accountId,
        purpose: 'list',
        request,
        createdAt: new Date(),
        origin: null,
      }),
    );
    await db.manager.update(LeadListEntity, { id }, { status });
    return id;
  }

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'lists-unit-'));
    database = await createTestDatabase();
    db = await Database.open(database.url);
  });
  afterAll(async () => {
    await db?.dataSource.destroy();
    await database?.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('checks the plan before the body: a bad body from a plan without lists is a plan error', async () => {
    await expect(service().create(await callerOn('large'), { minAge: 99 }, '')).rejects.toBeInstanceOf(
      PlanError,
    );
    await expect(service().create(await callerOn('business'), { minAge: 99 }, '')).rejects.toBeInstanceOf(
      FieldError,
    );
  });

  it('refuses unknown technologies and categories, naming the item', async () => {
    const caller = await callerOn('business');
    await expect(
      service().create(caller, { technologies: [{ slug: 'wordpress' }, { slug: 'nope' }] }, ''),
    ).rejects.toThrow(new ValidationError('technologies', 'technologies[1].slug: unknown technology nope'));
    await expect(service().create(caller, { categories: ['cms', 'blogs'] }, '')).rejects.toThrow(
      'categories[1]: unknown category blogs',
    );
  });

  it("adds a category's technologies after the named ones, each once, and keeps the origin", async () => {
    const caller = await callerOn('business');
    const { id } = await service().create(
      caller,
      { technologies: [{ slug: 'drupal' }], categories: ['cms'] },
      'http://lists.test',
    );
    const row = await db.manager.findOneByOrFail(LeadListEntity, { id });
    const request = JSON.parse(row.request) as ReturnType<typeof toListRequest>;
    expect(request.technologies.map((t) => [t.slug, t.explicit])).toEqual([
      ['drupal', true],
      ['joomla', false],
      ['wordpress', false],
    ]);
    expect(row.origin).toBe('http://lists.test');
    expect(enqueued).toContainEqual({ listId: id });
  });

  it('checks callbackUrl with the callback rules, as callbackUrl', async () => {
    await expect(
      service().create(await callerOn('business'), { ...WP, callbackUrl: 'http://x.test' }, ''),
    ).rejects.toThrow(new ValidationError('callbackUrl', 'callbackUrl must be https'));
  });

  it('accepts as base or exclusion only an own list that is Ready or Complete', async () => {
    const caller = await callerOn('business');
    const other = await callerOn('business');
    const calculating = await listOf(caller, 'Calculating');
    const foreign = await listOf(other, 'Ready');
    const ready = await listOf(caller, 'Ready');
    await expect(service().create(caller, { ...WP, baseListId: calculating }, '')).rejects.toThrow(
      `baseListId: list ${calculating} is Calculating; only Ready or Complete lists can be used`,
    );
    await expect(service().create(caller, { ...WP, excludeListId: foreign }, '')).rejects.toThrow(
      `excludeListId: no list ${foreign}`,
    );
    await expect(service().create(caller, { ...WP, baseListId: ready }, '')).resolves.toMatchObject({
      status: 'Calculating',
    });
  });

  it('caps exclusions at 10 lists with their own exclusions, and at 500,000 websites', async () => {
    const caller = await callerOn('business');
    const inherited = [];
    for (let i = 0; i < 10; i++) inherited.push(await listOf(caller, 'Ready'));
    const chained = await listOf(caller, 'Complete', inherited);
    await expect(service().create(caller, { ...WP, excludeListId: chained }, '')).rejects.toThrow(
      'excludeListId: at most 10 lists may be excluded (this one excludes 11 with its own exclusions)',
    );
    // A deleted list of the chain no longer counts.
    await db.manager.update(LeadListEntity, { id: inherited[0] }, { deletedAt: new Date() });
    const lists = service();
    await expect(lists.create(caller, { ...WP, excludeListId: chained }, '')).resolves.toBeDefined();
    // The websites' count is the repository's (500,001 rows would be a slow fixture for one bound).
    (lists as unknown as { lists: { distinctSites: () => Promise<number> } }).lists.distinctSites =
      async () => 500_001;
    await expect(lists.create(caller, { ...WP, excludeListId: chained }, '')).rejects.toThrow(
      'excludeListId: at most 500000 websites may be excluded (these lists hold 500001)',
    );
  });

  it('allows LISTS_DAILY_LIMIT lists per UTC day, then 429 until midnight', async () => {
    const caller = await callerOn('business');
    const lists = service({ LISTS_DAILY_LIMIT: '2', LISTS_CONCURRENT_LIMIT: '10' });
    const late = new Date('2031-05-06T23:59:00.000Z');
    await lists.create(caller, WP, '', late);
    await lists.create(caller, WP, '', late);
    const refused = await lists.create(caller, WP, '', late).catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(RateLimitError);
    expect((refused as RateLimitError).retryAfterSeconds).toBe(60);
    // The next day counts afresh.
    await expect(lists.create(caller, WP, '', new Date('2031-05-07T00:00:01.000Z'))).resolves.toBeDefined();
  });

  it('allows LISTS_CONCURRENT_LIMIT lists Calculating at once', async () => {
    const caller = await callerOn('business');
    const lists = service({ LISTS_CONCURRENT_LIMIT: '2' });
    const first = await lists.create(caller, WP, '');
    await lists.create(caller, WP, '');
    await expect(lists.create(caller, WP, '')).rejects.toThrow(
      'Lists: at most 2 lists may be Calculating at once',
    );
    await db.manager.update(LeadListEntity, { id: first.id }, { status: 'Ready' });
    await expect(lists.create(caller, WP, '')).resolves.toBeDefined();
  });
});
