import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { printSchema } from 'graphql';
import { EventBus } from '../../../src/platform/event-bus';
import { buildAppSchema } from '../../../src/resolvers/build-schema';

const SCHEMA_FILE = join(__dirname, '..', '..', '..', 'schema.graphql');

describe('the committed GraphQL schema', () => {
  it('matches the schema the code builds (run `npm run schema:print` after changing the schema)', async () => {
    const built = printSchema(await buildAppSchema(new EventBus())) + '\n';
    const committed = readFileSync(SCHEMA_FILE, 'utf8');
    if (built !== committed) {
      const builtLines = built.split('\n');
      const committedLines = committed.split('\n');
      const line = builtLines.findIndex((text, i) => text !== committedLines[i]);
      throw new Error(
        `schema.graphql is out of date: run \`npm run schema:print\` and commit the result.\n` +
          `First difference at line ${line + 1}:\n  committed: ${committedLines[line] ?? '(end of file)'}\n  built:     ${builtLines[line] ?? '(end of file)'}`,
      );
    }
    expect(committed).toContain('creditsChanged');
  });
});
