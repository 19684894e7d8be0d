import { createServer, request as httpRequest, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { request } from 'undici';
import { createGuardedAgent, fetchPage, isTargetRefusal } from '../../../src/fetch';
import { assertFetchableUrl, isRefusedAddress } from '../../../src/fetch/private-address-guard';
import { ConfigError, loadConfig } from '../../../src/platform/config';
import { GuardProxy } from '../../../src/fetch/browser/guard-proxy';

/**
 * ALLOWED_PRIVATE_RANGES: the given private ranges are reachable while every other private,
 * loopback and link-local range stays refused (a synthetic web on 127.0.0.0/8 that must still
 * refuse a redirect to 10.0.0.1 as a private address). Real servers on 127.0.0.1 and [::1].
 */
interface Site {
  base: string;
  paths: string[];
  server: Server;
}

/** A site whose /to?url=X redirects to X; every path it is asked for is recorded. */
async function startSite(address: string): Promise<Site> {
  const paths: string[] = [];
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site');
    paths.push(url.pathname);
    if (url.pathname === '/to')
      return void res.writeHead(302, { location: url.searchParams.get('url')! }).end();
    res.writeHead(200, { 'content-type': 'text/html' }).end('<html><head><title>ok</title></head></html>');
  });
  await new Promise<void>((resolve) => server.listen(0, address, resolve));
  const { port } = server.address() as AddressInfo;
  return { base: `http://${address.includes(':') ? `[${address}]` : address}:${port}`, paths, server };
}

const loopbackOnly = { allowedPrivateRanges: ['127.0.0.0/8'] };
const fetchOptions = { ...loopbackOnly, timeoutMs: 2_000, dnsServers: ['127.0.0.1:9'], dnsTimeoutMs: 100 };

describe('ALLOWED_PRIVATE_RANGES', () => {
  let v4: Site;
  let v6: Site;
  beforeAll(async () => {
    v4 = await startSite('127.0.0.1');
    v6 = await startSite('::1');
  });
  afterAll(async () => {
    for (const site of [v4, v6]) {
      site.server.closeAllConnections();
      await new Promise((resolve) => site.server.close(resolve));
    }
  });

  it('decides per address: the allowed ranges open, every other private range refused', () => {
    const ranges = ['127.0.0.0/8', 'fd12:3456::/32'];
    const policy = { allowedPrivateRanges: ranges };
    for (const allowed of [
      '127.0.0.1',
      '127.42.7.9',
      '::ffff:127.0.0.1',
      'fd12:3456::1',
      '[fd12:3456:ffff::9]',
    ])
      expect([allowed, isRefusedAddress(allowed, policy)]).toEqual([allowed, false]);
    for (const refused of [
      '10.0.0.1',
      '169.254.169.254',
      '192.168.1.1',
      '::1',
      'fe80::1',
      'fd00:ec2::254',
      '0.0.0.0',
    ])
      expect([refused, isRefusedAddress(refused, policy)]).toEqual([refused, true]);
    // Public addresses are unaffected, and ALLOW_PRIVATE_TARGETS still opens everything.
    expect(isRefusedAddress('93.184.216.34', policy)).toBe(false);
    expect(isRefusedAddress('10.0.0.1', { allowPrivateTargets: true })).toBe(false);
    expect(isRefusedAddress('127.0.0.1', {})).toBe(true);
  });

  it('crawls a 127.x host, by address and by a name that resolves there', async () => {
    const page = await fetchPage(`${v4.base}/`, fetchOptions);
    expect(page.input.url).toBe(`${v4.base}/`);
    const port = new URL(v4.base).port;
    const named = await fetchPage(`http://shop.web.test:${port}/`, {
      ...fetchOptions,
      lookup: async () => ['127.0.0.1'],
    });
    expect(named.input.url).toBe(`http://shop.web.test:${port}/`);
  });

  it('refuses a redirect from an allowed host to 10.0.0.1, or to [::1] outside the ranges', async () => {
    for (const target of ['http://10.0.0.1/', `${v6.base}/`, 'http://169.254.169.254/latest/meta-data/']) {
      const before = v6.paths.length;
      await expect(
        fetchPage(`${v4.base}/to?url=${encodeURIComponent(target)}`, fetchOptions),
      ).rejects.toMatchObject({
        type: 'NO_RESPONSE',
        message: expect.stringMatching(/Refused target: the address .* is private/),
      });
      expect(v6.paths.length).toBe(before);
    }
  });

  it('refuses a name whose DNS answer falls into a refused range, at the pre-check and at the connection', async () => {
    const toTen = async (): Promise<string[]> => ['10.0.0.1'];
    await expect(
      assertFetchableUrl('http://intranet.web.test/', { ...loopbackOnly, lookup: toTen }),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/intranet\.web\.test resolves to 10\.0\.0\.1/),
    });
    await expect(
      assertFetchableUrl('http://shop.web.test/', { ...loopbackOnly, lookup: async () => ['127.9.9.9'] }),
    ).resolves.toBeUndefined();
    // A name answering an allowed address and a refused one is refused (the guard checks every answer).
    const port = new URL(v4.base).port;
    const before = v4.paths.length;
    await expect(
      fetchPage(`http://mixed.web.test:${port}/`, {
        ...fetchOptions,
        lookup: async () => ['127.0.0.1', '192.168.0.10'],
      }),
    ).rejects.toMatchObject({
      message: expect.stringMatching(/mixed\.web\.test resolves to 192\.168\.0\.10/),
    });
    expect(v4.paths.length).toBe(before);
  });

  it('opens an IPv6 range the same way (::1/128) and then refuses 127.0.0.1', async () => {
    const policy = {
      allowedPrivateRanges: ['::1/128'],
      timeoutMs: 2_000,
      dnsServers: ['127.0.0.1:9'],
      dnsTimeoutMs: 100,
    };
    const page = await fetchPage(`${v6.base}/`, policy);
    expect(page.input.url).toBe(`${v6.base}/`);
    await expect(fetchPage(`${v4.base}/`, policy)).rejects.toMatchObject({ type: 'NO_RESPONSE' });
    // The dispatcher used for callbacks takes the same policy.
    const agent = createGuardedAgent({ allowedPrivateRanges: ['::1/128'] });
    try {
      const error = await request(`${v4.base}/hook`, { dispatcher: agent, method: 'POST', body: '{}' }).catch(
        (caught: unknown) => caught,
      );
      expect(isTargetRefusal(error)).toBe(true);
      const ok = await request(`${v6.base}/hook`, { dispatcher: agent, method: 'POST', body: '{}' });
      expect(ok.statusCode).toBe(200);
      await ok.body.dump();
    } finally {
      await agent.close();
    }
  });

  it("applies to the browser's proxy: a page on 127.x is served, a request to 10.x refused", async () => {
    const proxy = new GuardProxy({
      ...loopbackOnly,
      lookup: async (name) => [name === 'shop.web.test' ? '127.0.0.1' : '10.0.0.1'],
    });
    const proxyUrl = new URL(await proxy.start());
    const viaProxy = (target: string) =>
      new Promise<number>((resolve, reject) => {
        const req = httpRequest({ host: proxyUrl.hostname, port: proxyUrl.port, path: target }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on('error', reject);
        req.end();
      });
    try {
      const port = new URL(v4.base).port;
      expect(await viaProxy(`http://shop.web.test:${port}/`)).toBe(200);
      expect(await viaProxy(`http://intranet.web.test:${port}/`)).toBe(403);
      expect(await viaProxy(`${v6.base}/`)).toBe(403);
    } finally {
      await proxy.close();
    }
  });

  it('is read from the environment and refused with a message naming it when a range is malformed', () => {
    expect(loadConfig({ ALLOWED_PRIVATE_RANGES: '127.0.0.0/8, fd00::/8' }).ALLOWED_PRIVATE_RANGES).toEqual([
      '127.0.0.0/8',
      'fd00::/8',
    ]);
    expect(loadConfig({}).ALLOWED_PRIVATE_RANGES).toEqual([]);
    for (const bad of ['127.0.0.0/33', '127.0.0.1', 'localhost/8', 'fd00::/129']) {
      let message = '';
      try {
        loadConfig({ ALLOWED_PRIVATE_RANGES: bad });
      } catch (error) {
        expect(error).toBeInstanceOf(ConfigError);
        message = (error as Error).message;
      }
      expect(message).toContain('ALLOWED_PRIVATE_RANGES');
    }
  });
});
