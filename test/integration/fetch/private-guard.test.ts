import { request } from 'undici';
import { assertPublicUrl, createGuardedAgent, fetchPage, isTargetRefusal } from '../../../src/fetch';
import { startTestSites, TestSites } from '../../helpers/test-sites';

let sites: TestSites;
beforeAll(async () => {
  sites = await startTestSites();
});
afterAll(async () => {
  await sites.close();
});

/** Maps every name to the loopback test site, as a hostile DNS server could. */
const toLoopback = async (): Promise<string[]> => ['127.0.0.1'];
const port = (): string => new URL(sites.httpUrl).port;

describe('the private-address guard (on by default)', () => {
  it('refuses a loopback target before any request reaches it', async () => {
    const before = sites.requests.length;
    await expect(fetchPage(sites.url('/'), { timeoutMs: 2_000 })).rejects.toMatchObject({
      type: 'NO_RESPONSE',
      message: expect.stringMatching(/Refused target: the address 127\.0\.0\.1 is private/),
    });
    expect(sites.requests.length).toBe(before);
  });

  it('refuses IPv4-mapped IPv6 and 0.0.0.0 spellings of the local host', async () => {
    for (const url of [`http://[::ffff:127.0.0.1]:${port()}/`, `http://0.0.0.0:${port()}/`]) {
      await expect(fetchPage(url, { timeoutMs: 2_000 })).rejects.toMatchObject({ type: 'NO_RESPONSE' });
    }
  });

  it('checks the address actually connected, so a DNS answer that changes after the pre-check is refused', async () => {
    const firstAnswer = async (): Promise<string[]> => ['93.184.216.34'];
    await expect(
      assertPublicUrl(`http://rebind.example:${port()}/`, { lookup: firstAnswer }),
    ).resolves.toBeInstanceOf(URL);
    const before = sites.requests.length;
    await expect(
      fetchPage(`http://rebind.example:${port()}/`, { timeoutMs: 2_000, lookup: toLoopback }),
    ).rejects.toMatchObject({ message: expect.stringMatching(/rebind\.example resolves to 127\.0\.0\.1/) });
    expect(sites.requests.length).toBe(before);
  });

  it('guards requests made through the exported dispatcher (callback delivery)', async () => {
    const agent = createGuardedAgent({ lookup: toLoopback });
    try {
      const error = await request(`http://hooks.example:${port()}/callback`, {
        dispatcher: agent,
        method: 'POST',
        body: '{}',
      }).catch((caught: unknown) => caught);
      expect(isTargetRefusal(error)).toBe(true);
    } finally {
      await agent.close();
    }
  });

  it('lets names through to loopback when private targets are allowed', async () => {
    const page = await fetchPage(`http://www.flavor.test:${port()}/about/`, {
      allowPrivateTargets: true,
      lookup: toLoopback,
      dnsServers: ['127.0.0.1:1'],
      dnsTimeoutMs: 100,
      timeoutMs: 2_000,
    });
    expect(page.input.url).toBe(`http://www.flavor.test:${port()}/about/`);
    expect(sites.requests.at(-1)?.host).toBe(`www.flavor.test:${port()}`);
  });
});
