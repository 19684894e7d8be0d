import { Args, Ctx, Query, Resolver } from 'type-graphql';
import { EmailVerification } from '../schema/email-verification.type';
import { argsTypeOf } from '../schema/zod-graphql';
import type { EmailVerificationResult } from '../services/verify/email-verification.service';
import { VerifyEmailRequest } from '../services/verify/verify.contract';
import { parseRequest } from '../services/platform/request-schema';
import { GraphQLContext, requireCaller } from './context';
import { RateLimited } from './guards';

const VerifyEmailArgs = argsTypeOf(VerifyEmailRequest, 'VerifyEmailArgs');

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
    @Args(() => VerifyEmailArgs) args: object,
  ): Promise<EmailVerificationResult> {
    const { email } = parseRequest(VerifyEmailRequest, args);
    return ctx.services.verification.verify(requireCaller(ctx), email);
  }
}
