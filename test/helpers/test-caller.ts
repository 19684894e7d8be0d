import { randomUUID } from 'node:crypto';
import type { Caller } from '../../src/services/platform/caller';
import { newMeter } from '../../src/services/platform/caller';
import type { Services } from '../../src/services/services';

/**
 * A Caller built the way src/resolvers/context.ts builds one (authenticate the key, fresh meter),
 * for service-level tests that exercise the rules without a transport.
 */
export async function callerFor(services: Services, apiKey: string): Promise<Caller> {
  const principal = await services.auth.authenticate(apiKey);
  return { principal, requestId: randomUUID(), meter: newMeter() };
}
