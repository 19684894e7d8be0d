import { ConfigError, loadConfig, SETTING_NAMES } from '../../../src/platform/config';

function problemsOf(env: Record<string, string>): string {
  try {
    loadConfig(env);
  } catch (error) {
    expect(error).toBeInstanceOf(ConfigError);
    return (error as ConfigError).message;
  }
  throw new Error('loadConfig accepted an invalid environment');
}

describe('loadConfig', () => {
  it('has working defaults for a fresh machine', () => {
    const config = loadConfig({});
    expect(config).toMatchObject({
      PORT: 3000,
      DATABASE_URL: 'sqlite:./data/service.db',
      HEADER_PREFIX: 'service',
      DEMO_DAILY_REQUESTS: 10,
      REQUEST_BODY_LIMIT_BYTES: 1_048_576,
      ALLOW_PRIVATE_TARGETS: false,
    });
    expect(config.DEMO_API_KEY).toBeUndefined();
    expect(Object.isFrozen(config)).toBe(true);
  });

  it('reads and converts settings', () => {
    const config = loadConfig({
      PORT: '8080',
      DATABASE_URL: 'mysql://u:p@db:3306/tis',
      ALLOW_PRIVATE_TARGETS: 'yes',
      HEADER_PREFIX: 'acme',
      DEMO_API_KEY: 'x'.repeat(16),
      DNS_SERVERS: '1.1.1.1, 9.9.9.9',
    });
    expect(config).toMatchObject({
      PORT: 8080,
      ALLOW_PRIVATE_TARGETS: true,
      HEADER_PREFIX: 'acme',
      DNS_SERVERS: ['1.1.1.1', '9.9.9.9'],
    });
  });

  it('treats an empty value as unset', () => {
    expect(loadConfig({ PORT: '', DEMO_API_KEY: '' })).toMatchObject({ PORT: 3000, DEMO_API_KEY: undefined });
  });

  it('ignores a setting it does not read, such as one an operator kept after it was removed', () => {
    const config = loadConfig({ SQLITE_METER_THREAD: 'not a boolean' });
    expect(config).not.toHaveProperty('SQLITE_METER_THREAD');
  });

  it('names every invalid setting at once', () => {
    const message = problemsOf({
      PORT: 'eighty',
      DATABASE_URL: 'postgres://localhost/db',
      DEMO_API_KEY: 'short',
      HEADER_PREFIX: 'Bad Prefix',
      ALLOW_PRIVATE_TARGETS: 'maybe',
      LOG_LEVEL: 'loud',
      REQUEST_BODY_LIMIT_BYTES: '10',
    });
    for (const name of [
      'PORT',
      'DATABASE_URL',
      'DEMO_API_KEY',
      'HEADER_PREFIX',
      'ALLOW_PRIVATE_TARGETS',
      'LOG_LEVEL',
      'REQUEST_BODY_LIMIT_BYTES',
    ]) {
      expect(message).toMatch(new RegExp(`^\\s*${name}: `, 'm'));
    }
    expect(message).toMatch(/DATABASE_URL: must be sqlite:PATH or mysql:/);
    expect(message).toMatch(/DEMO_API_KEY: must be at least 16 characters/);
  });

  it.each([
    ['PORT', '70000'],
    ['PORT', '3.5'],
    ['DEMO_DAILY_REQUESTS', '0'],
    ['NODE_ENV', 'staging'],
    ['PUBLIC_BASE_URL', 'not a url'],
  ])('refuses %s=%s', (name, value) => {
    expect(problemsOf({ [name]: value })).toContain(`${name}:`);
  });

  it('lists its settings for the README', () => {
    expect(SETTING_NAMES).toEqual(
      expect.arrayContaining([
        'PORT',
        'DATABASE_URL',
        'DEMO_API_KEY',
        'HEADER_PREFIX',
        'REQUEST_BODY_LIMIT_BYTES',
      ]),
    );
  });
});
