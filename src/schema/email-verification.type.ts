import { EmailVerificationShape } from '../services/verify/verify.contract';
import { objectTypeOf } from './zod-graphql';

/** The spec's "Email verification result" (GET /v2/verify/ returns exactly this), made from its published shape. */
export const EmailVerification = objectTypeOf(
  EmailVerificationShape,
  'EmailVerification',
  "The verification of one email address: syntax, the domain's mail exchangers and an SMTP conversation " +
    'with them that stops before DATA.',
);
