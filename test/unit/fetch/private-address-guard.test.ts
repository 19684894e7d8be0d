import { TargetForbiddenError, ValidationError } from '../../../src/errors';
import { assertPublicUrl, isPrivateAddress } from '../../../src/fetch';

describe('isPrivateAddress', () => {
  it.each([
    '127.0.0.1',
    '127.8.9.10',
    '10.1.2.3',
    '172.16.0.1',
    '172.31.255.255',
    '192.168.1.1',
    '169.254.169.254', // AWS/GCP/Azure metadata
    '100.64.0.1', // CGNAT
    '100.100.100.200', // Alibaba metadata
    '192.0.0.192', // Oracle metadata
    '0.0.0.0',
    '224.0.0.1',
    '255.255.255.255',
    '::',
    '::1',
    '[::1]',
    'fe80::1%eth0',
    'fc00::1',
    'fd00:ec2::254', // AWS metadata over IPv6
    'ff02::1',
    '::ffff:127.0.0.1', // IPv4-mapped
    '::ffff:a9fe:a9fe', // IPv4-mapped 169.254.169.254 in hex
    '64:ff9b::a9fe:a9fe', // NAT64 of the metadata address
    '2002:7f00:1::', // 6to4 of 127.0.0.1
    'not-an-ip',
  ])('refuses %s', (address) => {
    expect(isPrivateAddress(address)).toBe(true);
  });

  it.each([
    '93.184.216.34',
    '8.8.8.8',
    '172.32.0.1',
    '100.128.0.1',
    '2606:4700::6810:85e5',
    '::ffff:8.8.8.8',
    '64:ff9b::808:808',
    '2002:808:808::',
  ])('accepts the public address %s', (address) => {
    expect(isPrivateAddress(address)).toBe(false);
  });
});

describe('assertPublicUrl', () => {
  const publicLookup = async (): Promise<string[]> => ['93.184.216.34'];

  it('accepts an http(s) URL whose host resolves only to public addresses', async () => {
    const url = await assertPublicUrl('https://example.com/callback', { lookup: publicLookup });
    expect(url.hostname).toBe('example.com');
  });

  it.each(['ftp://example.com/', 'file:///etc/passwd', 'gopher://example.com/', 'not a url'])(
    'rejects %s as a malformed target',
    async (url) => {
      await expect(assertPublicUrl(url, { lookup: publicLookup }, 'callback_url')).rejects.toBeInstanceOf(
        ValidationError,
      );
    },
  );

  it('rejects credentials in the URL', async () => {
    await expect(assertPublicUrl('https://user:pw@example.com/', { lookup: publicLookup })).rejects.toThrow(
      /credentials/,
    );
  });

  it('refuses literal private addresses, including bracketed IPv6 and mapped forms', async () => {
    for (const url of [
      'http://127.0.0.1/',
      'http://[::1]:8080/',
      'http://[::ffff:169.254.169.254]/',
      'http://0.0.0.0/',
    ]) {
      await expect(assertPublicUrl(url)).rejects.toBeInstanceOf(TargetForbiddenError);
    }
  });

  it('refuses a host when any of its addresses is private', async () => {
    const mixed = async (): Promise<string[]> => ['93.184.216.34', '10.0.0.5'];
    await expect(assertPublicUrl('https://internal.example.com/', { lookup: mixed })).rejects.toThrow(
      /internal\.example\.com resolves to 10\.0\.0\.5/,
    );
  });

  it('refuses a host that does not resolve', async () => {
    const failing = async (): Promise<string[]> => {
      throw Object.assign(new Error('nope'), { code: 'ENOTFOUND' });
    };
    await expect(assertPublicUrl('https://nowhere.invalid/', { lookup: failing })).rejects.toBeInstanceOf(
      TargetForbiddenError,
    );
  });

  it('allows private targets when the operator enables them', async () => {
    await expect(
      assertPublicUrl('http://127.0.0.1:3000/', { allowPrivateTargets: true }),
    ).resolves.toBeInstanceOf(URL);
  });
});
