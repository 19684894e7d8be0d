import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';

import type { DetectionInput } from '../../src/detection';

export interface CorpusPage {
  name: string;
  input: DetectionInput;
  expect: { technologies: { name: string; version?: string; implied?: boolean }[] };
}

/** The page corpus of test/fixtures/pages (NAME.html + NAME.json), found from the repo root. */
export function loadCorpus(): CorpusPage[] {
  const candidates = [
    resolve(process.cwd(), 'test/fixtures/pages'),
    resolve(__dirname, '../../../test/fixtures/pages'),
  ];
  const dir = candidates.find((d) => existsSync(d));
  if (!dir) throw new Error(`page corpus not found in ${candidates.join(' or ')}`);
  return readdirSync(dir)
    .filter((file) => file.endsWith('.json'))
    .sort()
    .map((file) => {
      const name = file.slice(0, -'.json'.length);
      const { expect, ...facts } = JSON.parse(readFileSync(join(dir, file), 'utf8'));
      return { name, input: { ...facts, html: readFileSync(join(dir, `${name}.html`), 'utf8') }, expect };
    });
}
