import { AccountResolver } from './account.resolver';
import { AnalysisResolver } from './analysis.resolver';
import { SubdomainResolver } from './subdomain.resolver';

/** Every resolver class of the schema. Add new resolvers here. */
export const RESOLVERS = [AccountResolver, AnalysisResolver, SubdomainResolver];
