import { CommercialClient } from '../../helpers/commercial-client';
import { startLookupKit, LookupKit } from './lookup-v2-kit';

/**
 * Lookup, balance, subdomains and the catalogue through a client written for the commercial API
 * (test/helpers/commercial-client): every call it makes must work here.
 */
describe('a client written for the commercial API, pointed at this service', () => {
  let kit: LookupKit;
  let client: CommercialClient;
  let keyless: CommercialClient;

  beforeAll(async () => {
    kit = await startLookupKit();
    const { apiKey } = await kit.service.createAccount({ plan: 'business', credits: 100 });
    client = new CommercialClient(`${kit.service.url}/v2/`, apiKey);
    keyless = new CommercialClient(`${kit.service.url}/v2/`);
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
    await expect(new CommercialClient(`${kit.service.url}/v2/`, 'wrong').lookup('a.test')).rejects.toThrow(
      /^403: /,
    );
  });
});
