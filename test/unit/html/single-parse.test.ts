/**
 * Regression net of the single parse (issue 35 §2): for every page of test/corpus/sites and
 * test/fixtures/pages and the hand-made edge pages (edge-pages.ts), the fetcher's HtmlFacts, the enrichment's PageDocument, the detection's light
 * document and the detection result must be what the three separate readers of main produced
 * (recorded in test/fixtures/single-parse/readers.json, digests per part).
 *
 * Re-record (only when an output is meant to change, say why in the commit):
 *   RECORD_PARSE_NET=1 npx jest test/unit/html/single-parse.test.ts
 */
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { loadParsePages } from '../../../bench/parse/corpus-pages';
import { EDGE_PAGES } from './edge-pages';
import { readerOutputs, separateReaders, sharedReaders, type ReaderOutputs } from './reader-outputs';

const FIXTURE = join(__dirname, '../../fixtures/single-parse/readers.json');
const pages = [...loadParsePages(), ...EDGE_PAGES];

describe('one parse per page gives what the three readers gave', () => {
  if (process.env.RECORD_PARSE_NET === '1') {
    it('records the readers of this code', () => {
      const recorded: Record<string, ReaderOutputs> = {};
      for (const page of pages) {
        recorded[page.name] = readerOutputs(
          { url: page.url, html: page.html, headers: page.headers as Record<string, string[]> },
          separateReaders,
        );
      }
      writeFileSync(FIXTURE, `${JSON.stringify(recorded, null, 1)}\n`);
    });
    return;
  }

  const recorded = existsSync(FIXTURE)
    ? (JSON.parse(readFileSync(FIXTURE, 'utf8')) as Record<string, ReaderOutputs>)
    : {};

  it('has a record for every page', () => {
    expect(Object.keys(recorded).sort()).toEqual(pages.map((p) => p.name).sort());
  });

  it.each(pages.map((page) => [page.name, page] as const))('%s', (name, page) => {
    const input = { url: page.url, html: page.html, headers: page.headers as Record<string, string[]> };
    // Each reader on the HTML alone, and all of them on one reading of the page.
    expect(readerOutputs(input, separateReaders)).toEqual(recorded[name]);
    const shared = sharedReaders() as ReturnType<typeof sharedReaders> & { parses: () => number };
    expect(readerOutputs(input, shared)).toEqual(recorded[name]);
    expect(shared.parses()).toBe(1);
  });
});
