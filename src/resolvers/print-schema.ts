import 'reflect-metadata';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { printSchema } from 'graphql';
import { EventBus } from '../platform/event-bus';
import { buildAppSchema } from './build-schema';

/** `npm run schema:print`: rewrites the committed schema.graphql from the code. */
async function main(): Promise<void> {
  const schema = await buildAppSchema(new EventBus());
  const target = join(__dirname, '..', '..', '..', 'schema.graphql');
  writeFileSync(target, printSchema(schema) + '\n');
  console.log(`wrote ${target}`);
}

void main();
