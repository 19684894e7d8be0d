import { z } from 'zod';
import { MAX_EMAIL_INPUT_LENGTH, REACHABLE_DESCRIPTION, REACHABLE_VALUES } from '../../verify';
import { field } from '../platform/request-schema';

/**
 * GET /v2/verify/: only input that is not an address at all (missing, empty, longer than 320
 * characters) is refused; anything else is verified, and may well be `invalid`.
 */
export const VerifyEmailRequest = z.object({
  email: field.text({
    maxLength: MAX_EMAIL_INPUT_LENGTH,
    required: true,
    description: `The address to verify, at most ${MAX_EMAIL_INPUT_LENGTH} characters`,
  }),
});

/**
 * The spec's "Email verification result", field for field: GET /v2/verify/'s answer and the
 * GraphQL EmailVerification type alike (that type is made from this shape).
 */
export const EmailVerificationShape = z.strictObject({
  email: z.string().describe('The input address, as given'),
  domain: z
    .string()
    .describe("Domain part of the address, lower case, IDN in punycode; '' when there is none"),
  reachable: z.enum(REACHABLE_VALUES).describe(REACHABLE_DESCRIPTION),
  disposable: z
    .boolean()
    .describe('The domain (or a parent domain) belongs to a known disposable-address provider'),
  roleAccount: z
    .boolean()
    .describe('A team or function address (admin@, info@, sales@…) rather than a person'),
  mxValid: z
    .boolean()
    .describe('The domain can receive mail: MX records (not a null MX), or an A/AAAA record'),
  connection: z.boolean().describe("An SMTP session was opened with one of the domain's mail servers"),
  inboxFull: z.boolean().describe('The server refused the address because its inbox is full'),
  catchAll: z.boolean().describe('The server also accepted a random address at the domain'),
  deliverable: z.boolean().describe('The server accepted the address as a recipient'),
  disabled: z.boolean().describe('The server said the mailbox is disabled, inactive or discontinued'),
  syntaxValid: z
    .boolean()
    .describe('The address is syntactically valid (no DNS or SMTP is attempted otherwise)'),
});
