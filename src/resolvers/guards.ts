import type { GraphQLSchema } from 'graphql';
import { getMetadataStorage } from 'type-graphql';
import { ValidationError } from '../errors';
import type { Family } from '../plans/plan-catalog';
import { publicRateLimiterFor } from '../services/platform/public-rate-limiter';
import { rateLimiterFor } from '../services/platform/rate-limiter';
import { GraphQLContext, RequestContext, requireCaller } from './context';

/**
 * Who may call a resolver method, and what it costs before it runs. The guards wrap the method
 * itself, so GraphQL's execution and the REST facade's direct call (src/rest-facade) pass the very
 * same checks; the facade and the OpenAPI document read a method's guard (its family) from here.
 *
 * - `@RateLimited(family)`: a valid API key, then the key's rate limit for the endpoint family.
 * - `@Authenticated()`: a valid API key, no family (operator mutations; the method checks the rest).
 * - `@GraphRead(family)`: a field of the graph below a root field that reads the index (a
 *   technology's sites): a valid API key, the family counted once per request, a bound per request.
 * - `@PublicField()`: no key needed; counted against PUBLIC_RATE_LIMIT_PER_MINUTE per client address
 *   before any work, never metered.
 *
 * A key revoked before the request arrived is refused, wherever it was revoked, though the key may
 * come from the key cache (AuthService): a mutation asks before it runs (a revoked key changes
 * nothing); a query once it has run, unless it was metered (`meter.remaining`, set by the
 * settlement that checks the key in the transaction that counts and charges it): the answer is
 * replaced by the refusal. The stored lookups, the hot path, are metered queries and pay nothing
 * for this. Subscriptions are checked by the WebSocket server (each connection and each event).
 */
export type Guard = { kind: 'keyed'; family: Family | null } | { kind: 'public' };

const guards = new WeakMap<object, Map<string, Guard>>();

/** The guard declared on a resolver class's method, if any. */
export function guardOf(resolverClass: abstract new () => object, method: string): Guard | undefined {
  return guards.get(resolverClass.prototype)?.get(method);
}

function guardWith(guard: Guard, check: (context: GraphQLContext) => Promise<void> | void): MethodDecorator {
  return (target, key, descriptor) => {
    const byMethod = guards.get(target) ?? new Map<string, Guard>();
    guards.set(target, byMethod);
    byMethod.set(String(key), guard);
    const method = descriptor.value as unknown as (...args: unknown[]) => unknown;
    let mutates: boolean | undefined;
    const guarded = async function (this: unknown, ...args: unknown[]): Promise<unknown> {
      const context = contextIn(args);
      await check(context);
      if (guard.kind === 'public') return method.apply(this, args);
      mutates ??= isMutation(target, String(key));
      if (mutates) {
        await refuseIfRevoked(context);
        return method.apply(this, args);
      }
      let result: unknown;
      try {
        result = await method.apply(this, args);
      } catch (error) {
        // A revoked key's refusal outranks whatever else went wrong.
        await refuseUnlessSettled(context);
        throw error;
      }
      await refuseUnlessSettled(context);
      return result;
    };
    (descriptor as PropertyDescriptor).value = guarded;
    return descriptor;
  };
}

/** Whether a resolver method is a GraphQL mutation (it changes state: refused before it runs). */
function isMutation(target: object, method: string): boolean {
  return getMetadataStorage().mutations.some(
    (field) => (field.target as { prototype?: object }).prototype === target && field.methodName === method,
  );
}

async function refuseIfRevoked(context: GraphQLContext): Promise<void> {
  if (context.caller) await context.services.auth.refuseIfRevoked(context.caller.principal);
}

/** After a query: the revocation check, unless a settlement already checked the key. */
async function refuseUnlessSettled(context: GraphQLContext): Promise<void> {
  const caller = context.caller;
  if (!caller || caller.meter.remaining !== null) return;
  await context.services.auth.refuseIfRevoked(caller.principal);
}

/** The request's context among a method's arguments (GraphQL passes it where @Ctx() is; the facade too). */
function contextIn(args: readonly unknown[]): GraphQLContext {
  const context = args.find((arg) => arg instanceof RequestContext);
  if (!context) throw new Error('A guarded resolver method was called without its request context');
  return context as GraphQLContext;
}

export function RateLimited(family: Family): MethodDecorator {
  return guardWith({ kind: 'keyed', family }, async (context) => {
    await rateLimiterFor(context.services).consume(requireCaller(context).principal, family);
    // The graph's reads below this field are of the same request (see GraphRead).
    context.rateCounted = family;
  });
}

/** Index reads of the graph (GraphRead fields) one request may make: each is a statement or more. */
export const MAX_GRAPH_READS = 50;

/**
 * A field of the graph that reads the index below a root field (a technology's sites, versions and
 * changes; a site's changes): a valid API key; the family's rate limit counted once per request,
 * however many times the field appears (a site's twenty technologies each listing their sites are
 * one request); at most MAX_GRAPH_READS such fields per request (BAD_REQUEST naming the field after
 * that). The method charges what it reads, as its root twin does.
 */
export function GraphRead(family: Family): MethodDecorator {
  return (target, key, descriptor) =>
    guardWith({ kind: 'keyed', family }, async (context) => {
      const caller = requireCaller(context);
      context.notKept = true;
      const reads = (context.graphReads ??= { families: new Set<Family>(), count: 0 });
      if (++reads.count > MAX_GRAPH_READS)
        throw new ValidationError(
          String(key),
          `${String(key)}: at most ${MAX_GRAPH_READS} index reads (sites, versions, changes) per request`,
        );
      if (context.rateCounted === family || reads.families.has(family)) return;
      reads.families.add(family);
      await rateLimiterFor(context.services).consume(caller.principal, family);
    })(target, key, descriptor);
}

export function Authenticated(): MethodDecorator {
  return guardWith({ kind: 'keyed', family: null }, (context) => {
    requireCaller(context);
  });
}

export function PublicField(): MethodDecorator {
  return guardWith({ kind: 'public' }, async (context) => {
    if (context.publicCounted) return;
    context.publicCounted = true;
    await publicRateLimiterFor(context.services).consume(context.clientIp);
  });
}

/**
 * After the schema is built: every query and mutation field must have declared its guard (a field
 * without one is a mistake that would serve it to anyone), and subscriptions need a valid key to
 * start (their events are filtered by the caller's account).
 */
export function checkRootGuards(schema: GraphQLSchema, guardedFields: ReadonlySet<string>): void {
  for (const type of [schema.getQueryType(), schema.getMutationType()]) {
    for (const field of Object.values(type?.getFields() ?? {})) {
      if (!guardedFields.has(field.name))
        throw new Error(
          `The root field ${field.name} declares no guard (@RateLimited, @Authenticated or @PublicField)`,
        );
    }
  }
  for (const field of Object.values(schema.getSubscriptionType()?.getFields() ?? {})) {
    const { subscribe } = field;
    if (!subscribe) continue;
    field.subscribe = (source, args, context: GraphQLContext, info) => {
      requireCaller(context);
      return subscribe(source, args, context, info);
    };
  }
}
