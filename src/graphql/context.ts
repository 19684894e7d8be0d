import DataLoader from 'dataloader';
import { In } from 'typeorm';
import { AccountEntity } from '../entities';
import { AppError, AuthError } from '../errors';
import type { Caller } from '../services/caller';
import { newMeter } from '../services/caller';
import type { Services } from '../services/services';

/** Per-request batching: resolvers that need accounts ask the loader, never the database directly. */
export interface Loaders {
  account: DataLoader<number, AccountEntity | null>;
}

export interface GraphQLContext {
  /** Null when the request carried no valid key; `authError` then says why. */
  caller: Caller | null;
  authError: AppError | null;
  requestId: string;
  services: Services;
  loaders: Loaders;
}

function createLoaders(services: Services): Loaders {
  return {
    account: new DataLoader(async (ids: readonly number[]) => {
      const rows = await services.db.manager.find(AccountEntity, { where: { id: In([...ids]) } });
      const byId = new Map(rows.map((r) => [r.id, r]));
      return ids.map((id) => byId.get(id) ?? null);
    }),
  };
}

/**
 * The one context builder of every transport (Apollo HTTP, the REST facade, graphql-ws). Auth is
 * resolved here once; a failure is kept, not thrown, so that the field guard turns it into the
 * right error for the transport (403 over REST, extensions.code over GraphQL).
 */
export async function buildContext(services: Services, apiKey: string | undefined, requestId: string): Promise<GraphQLContext> {
  const base = { requestId, services, loaders: createLoaders(services) };
  try {
    const principal = await services.auth.authenticate(apiKey);
    return { ...base, caller: { principal, requestId, meter: newMeter() }, authError: null };
  } catch (error) {
    if (error instanceof AppError) return { ...base, caller: null, authError: error };
    throw error;
  }
}

/** The authenticated caller, or the auth error of this request. */
export function requireCaller(context: GraphQLContext): Caller {
  if (!context.caller) throw context.authError ?? new AuthError();
  return context.caller;
}
