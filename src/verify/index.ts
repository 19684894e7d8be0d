/** The public API of email verification; everything else in this folder is internal. */
export { EmailVerifier, type EmailVerifierOptions } from './email-verifier.service';
export { MAX_EMAIL_INPUT_LENGTH, requireEmailInput } from './email-input';
export type { EmailVerificationResult, Reachable } from './email-verification-result';
export { REACHABLE_VALUES } from './email-verification-result';
export {
  REACHABLE_DESCRIPTION,
  REACHABLE_RULES,
  decideReachable,
  type ReachableFacts,
  type ReachableRule,
} from './reachable-decision-table';
