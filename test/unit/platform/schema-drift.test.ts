import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { getNamedType, isObjectType, isInterfaceType, printSchema, GraphQLString } from 'graphql';
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

  it('carries no JSON text: no String field named json or *Json (REST renders its shapes itself)', async () => {
    const schema = await buildAppSchema(new EventBus());
    const offending: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || !(isObjectType(type) || isInterfaceType(type))) continue;
      for (const field of Object.values(type.getFields())) {
        if (/(^j|J)son$/.test(field.name) && getNamedType(field.type) === GraphQLString) {
          offending.push(`${type.name}.${field.name}`);
        }
      }
    }
    expect(offending).toEqual([]);
  });
});
