import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTING_NAMES } from '../../../src/platform/config';
import { ROUTE_TABLE } from '../../../src/rest-facade/route-table';

const root = join(__dirname, '..', '..', '..');
const read = (...path: string[]) => readFileSync(join(root, ...path), 'utf8');

const readme = read('README.md');
const configuration = read('docs', 'configuration.md');
/** Every page of docs/api/ together: each REST path needs a curl example on one of them. */
const apiPages = readdirSync(join(root, 'docs', 'api'))
  .filter((name) => name.endsWith('.md'))
  .map((name) => read('docs', 'api', name))
  .join('\n');

describe('README', () => {
  it('gives the two set-up commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });
});

describe('docs/configuration.md', () => {
  it.each(SETTING_NAMES)('documents the setting %s in the configuration table', (name) => {
    expect(configuration).toMatch(new RegExp(`^\\|\\s*\`${name}\`[^|]*\\|`, 'm'));
  });
});

describe('docs/api', () => {
  const documented = [...new Set(ROUTE_TABLE.filter((r) => !r.path.endsWith('/usage')).map((r) => r.path))];
  it.each(documented)('shows a curl example for %s', (path) => {
    expect(apiPages).toMatch(
      new RegExp(`curl [^\\n]*${path.replace(/\{[^}]+\}/g, '[^/?"]+')}/?([?"]|$)`, 'm'),
    );
  });
});
