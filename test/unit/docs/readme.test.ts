import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SETTING_NAMES } from '../../../src/config';
import { ROUTE_TABLE } from '../../../src/rest-facade/route-table';

const readme = readFileSync(join(__dirname, '..', '..', '..', 'README.md'), 'utf8');

describe('README', () => {
  it.each(SETTING_NAMES)('documents the setting %s in the configuration table', (name) => {
    expect(readme).toMatch(new RegExp(`^\\|\\s*\`${name}\`[^|]*\\|`, 'm'));
  });

  it('gives the two set-up commands', () => {
    expect(readme).toContain('npm ci && npm start');
    expect(readme).toContain('npm ci && npm test');
  });

  const documented = [...new Set(ROUTE_TABLE.filter((r) => !r.path.endsWith('/usage')).map((r) => r.path))];
  it.each(documented)('shows a curl example for %s', (path) => {
    expect(readme).toMatch(new RegExp(`curl [^\\n]*${path.replace(/\{[^}]+\}/g, '[^/?"]+')}/?([?"]|$)`, 'm'));
  });
});
