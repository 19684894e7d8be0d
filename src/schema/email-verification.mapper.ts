import type { EmailVerificationResult } from '../services/verify/email-verification.service';
import { EmailVerification } from './email-verification.type';

/** A verifier result becomes the published type here and only here. */
export function toEmailVerification(result: EmailVerificationResult): EmailVerification {
  return Object.assign(new EmailVerification(), {
    email: result.email,
    domain: result.domain,
    reachable: result.reachable,
    disposable: result.disposable,
    roleAccount: result.roleAccount,
    mxValid: result.mxValid,
    connection: result.connection,
    inboxFull: result.inboxFull,
    catchAll: result.catchAll,
    deliverable: result.deliverable,
    disabled: result.disabled,
    syntaxValid: result.syntaxValid,
  });
}
