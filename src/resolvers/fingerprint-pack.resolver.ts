import { Args, Ctx, Mutation, Query, Resolver } from 'type-graphql';
import {
  FingerprintPackLoad,
  FingerprintPacksStatus,
  FingerprintSetChange,
} from '../schema/fingerprint-pack.type';
import { toFingerprintPackLoad, toFingerprintPacksStatus } from '../schema/fingerprint-pack.mapper';
import { argsTypeOf } from '../schema/zod-graphql';
import {
  ActivateFingerprintsRequest,
  LoadFingerprintPackRequest,
  UnloadFingerprintPackRequest,
} from '../services/fingerprints/fingerprint-packs.contract';
import { GraphQLContext, requireCaller } from './context';
import { Authenticated } from './guards';

const LoadFingerprintPackArgs = argsTypeOf(LoadFingerprintPackRequest, 'LoadFingerprintPackArgs');
const UnloadFingerprintPackArgs = argsTypeOf(UnloadFingerprintPackRequest, 'UnloadFingerprintPackArgs');
const ActivateFingerprintsArgs = argsTypeOf(ActivateFingerprintsRequest, 'ActivateFingerprintsArgs');

/** The fingerprints:* commands for operators (OPERATOR_ACCOUNT_IDS) over the API. */
@Resolver()
export class FingerprintPackResolver {
  @Query(() => FingerprintPacksStatus, {
    description:
      'Operators only (OPERATOR_ACCOUNT_IDS): the active fingerprint set, its packs, earlier activations ' +
      'and the set this API process runs, as `npm run admin -- fingerprints:status`.',
  })
  @Authenticated()
  async fingerprintPacks(@Ctx() ctx: GraphQLContext): Promise<FingerprintPacksStatus> {
    const { principal } = requireCaller(ctx);
    return toFingerprintPacksStatus(await ctx.services.fingerprintPacks.statusFor(principal));
  }

  @Mutation(() => FingerprintPackLoad, {
    description:
      'Operators only (OPERATOR_ACCOUNT_IDS): validates a pack under FINGERPRINT_PACKS_DIR completely and ' +
      'activates the set with it, as `fingerprints:load`. A refused pack changes nothing: the error ' +
      '(BAD_REQUEST) lists every problem in extensions.problems.',
  })
  @Authenticated()
  async loadFingerprintPack(
    @Ctx() ctx: GraphQLContext,
    @Args(() => LoadFingerprintPackArgs) args: object,
  ): Promise<FingerprintPackLoad> {
    const { principal } = requireCaller(ctx);
    return toFingerprintPackLoad(await ctx.services.fingerprintPacks.loadFor(principal, args));
  }

  @Mutation(() => FingerprintSetChange, {
    description:
      'Operators only (OPERATOR_ACCOUNT_IDS): activates the set without that pack, as `fingerprints:unload`.',
  })
  @Authenticated()
  async unloadFingerprintPack(
    @Ctx() ctx: GraphQLContext,
    @Args(() => UnloadFingerprintPackArgs) args: object,
  ): Promise<FingerprintSetChange> {
    const { principal } = requireCaller(ctx);
    return ctx.services.fingerprintPacks.unloadFor(principal, args);
  }

  @Mutation(() => FingerprintSetChange, {
    description:
      'Operators only (OPERATOR_ACCOUNT_IDS): makes an earlier set (fingerprintPacks.history) the active ' +
      'one again, as `fingerprints:activate`.',
  })
  @Authenticated()
  async activateFingerprints(
    @Ctx() ctx: GraphQLContext,
    @Args(() => ActivateFingerprintsArgs) args: object,
  ): Promise<FingerprintSetChange> {
    const { principal } = requireCaller(ctx);
    return ctx.services.fingerprintPacks.activateFor(principal, args);
  }
}
