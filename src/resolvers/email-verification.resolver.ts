import { Arg, Ctx, Query, Resolver } from 'type-graphql';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';
import { toEmailVerification } from '../schema/email-verification.mapper';
import { EmailVerification } from '../schema/email-verification.type';

@Resolver()
export class EmailVerificationResolver {
  @Query(() => EmailVerification, {
    description:
      'GET /v2/verify/: verify one email address (Business plan; 1 credit per address answered, whatever ' +
      'the verdict). Results are cached per address; an unknown verdict is kept only briefly.',
  })
  @RateLimited('verify')
  async verifyEmail(
    @Ctx() ctx: GraphQLContext,
    @Arg('email', { description: 'The address to verify, at most 320 characters' }) email: string,
  ): Promise<EmailVerification> {
    return toEmailVerification(await ctx.services.verification.verify(requireCaller(ctx), email));
  }
}
