import { AccountResolver } from './account.resolver';

/** Every resolver class of the schema. Add new resolvers here. */
export const RESOLVERS = [AccountResolver];
