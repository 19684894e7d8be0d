import { Args, Ctx, Mutation, Resolver } from 'type-graphql';
import { SiteImportResult } from '../schema/site-import.type';
import { argsTypeOf } from '../schema/zod-graphql';
import { SiteImportRequest } from '../services/site-index/site-import.contract';
import type { ImportSummary } from '../services/site-index/site-import.service';
import { GraphQLContext, requireCaller } from './context';
import { Authenticated } from './guards';

const SiteImportArgs = argsTypeOf(SiteImportRequest, 'SiteImportArgs');

@Resolver()
export class SiteImportResolver {
  @Mutation(() => SiteImportResult, {
    description:
      'Operators only (OPERATOR_ACCOUNT_IDS): imports a ranked domain list into the index, exactly as ' +
      '`npm run admin -- sites:import`. Give `content` (the file as text, at most IMPORT_MAX_BYTES) or ' +
      '`url` (http(s) on a host in IMPORT_URL_HOSTS), not both. Free of credits.',
  })
  @Authenticated()
  async importSites(
    @Ctx() ctx: GraphQLContext,
    @Args(() => SiteImportArgs) args: object,
  ): Promise<ImportSummary> {
    const { principal } = requireCaller(ctx);
    return ctx.services.operatorImport.importSites(principal, args);
  }
}
