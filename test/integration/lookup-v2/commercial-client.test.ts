import { startLookupKit, LookupKit } from './lookup-v2-kit';

/**
 * A client written the way third-party clients of the commercial API are: a base URL ending in
 * `/v2/`, the key in `x-api-key`, `data[0]` of a single-URL answer, `parseInt` of the two credit
 * headers, and an error's text from `body.message`. Pointed at this service by changing only its
 * base URL, every call it makes must work.
 */
class CommercialStyleClient {
  constructor(
    private readonly baseUrl: string,
    private readonly apiKey?: string,
  ) {}

  async get(path: string, params: Record<string, string> = {}) {
    const query = new URLSearchParams(params).toString();
    const headers: Record<string, string> = {};
    if (this.apiKey) headers['x-api-key'] = this.apiKey;
    const response = await fetch(`${this.baseUrl}${path}${query ? `?${query}` : ''}`, { headers });
    const body = await response.json();
    if (!response.ok) throw new Error(`${response.status}: ${body.message}`);
    return {
      data: body,
      creditsSpent: parseInt(response.headers.get('service-credits-spent') ?? '', 10),
      creditsRemaining: parseInt(response.headers.get('service-credits-remaining') ?? '', 10),
    };
  }

  async lookup(url: string, sets: string[] = []) {
    const { data, creditsSpent, creditsRemaining } = await this.get('lookup/', {
      urls: url,
      sets: sets.join(','),
      recursive: 'false',
    });
    return { site: data[0], creditsSpent, creditsRemaining };
  }
}

describe('a client written for the commercial API, pointed at this service', () => {
  let kit: LookupKit;
  let client: CommercialStyleClient;
  let keyless: CommercialStyleClient;

  beforeAll(async () => {
    kit = await startLookupKit();
    const { apiKey } = await kit.service.createAccount({ plan: 'business', credits: 100 });
    client = new CommercialStyleClient(`${kit.service.url}/v2/`, apiKey);
    keyless = new CommercialStyleClient(`${kit.service.url}/v2/`);
  }, 60_000);
  afterAll(async () => {
    await kit?.close();
  });

  it('looks a site up (analysed now, then stored), reading data[0] and both credit headers', async () => {
    const fresh = await client.lookup(kit.sites.url('/'), ['meta', 'locale']);
    expect(fresh.site.technologies.length).toBeGreaterThan(0);
    expect(fresh.site.title).toEqual(expect.any(String));
    expect(fresh.creditsSpent).toBe(1);
    expect(fresh.creditsRemaining).toBe(99);
    const stored = await client.lookup(kit.sites.url('/'));
    expect(stored.site.technologies.map((t: { slug: string }) => t.slug)).toEqual(
      fresh.site.technologies.map((t: { slug: string }) => t.slug),
    );
    expect(stored.creditsRemaining).toBe(98);
  });

  it('reads the balance and finds subdomains', async () => {
    const balance = await client.get('credits/balance/');
    expect(balance.data.credits).toBe(98);
    expect(Number.isNaN(balance.creditsSpent)).toBe(false);
    const subdomains = await client.get('subdomains/', { domains: 'acme-robotics.de' });
    expect(subdomains.data[0].domain).toBe('acme-robotics.de');
    expect(typeof subdomains.data[0].subdomains).toBe('object');
  });

  it('reads the catalogue without a key', async () => {
    const technologies = await keyless.get('technologies/');
    expect(technologies.data.length).toBeGreaterThan(1000);
    const wordpress = await keyless.get('technologies/wordpress/');
    expect(wordpress.data).toMatchObject({ slug: 'wordpress', name: 'WordPress' });
    const categories = await keyless.get('categories/');
    expect(categories.data.length).toBeGreaterThan(50);
    const cms = await keyless.get('categories/cms/');
    expect(cms.data).toMatchObject({ slug: 'cms', technologiesCount: expect.any(Number) });
  });

  it('shows the service’s error text from body.message', async () => {
    await expect(client.get('lookup/', { urls: 'example.test', sets: 'colour' })).rejects.toThrow(
      /^400: .*sets/,
    );
    await expect(
      new CommercialStyleClient(`${kit.service.url}/v2/`, 'wrong').lookup('a.test'),
    ).rejects.toThrow(/^403: /);
  });
});
