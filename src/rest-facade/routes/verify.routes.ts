import { MAX_EMAIL_INPUT_LENGTH, REACHABLE_RULES } from '../../services/email-verification.service';
import type { JsonSchema } from '../json-schema';
import { serviceCheckedStringParam } from '../params';
import type { RestRoute } from '../route';

const FIELDS = [
  'email',
  'domain',
  'reachable',
  'disposable',
  'roleAccount',
  'mxValid',
  'connection',
  'inboxFull',
  'catchAll',
  'deliverable',
  'disabled',
  'syntaxValid',
] as const;

/** The reachable rules in words, first match wins: the same table the README shows. */
const REACHABLE_DESCRIPTION =
  'safe, risky, invalid or unknown; the first rule that applies decides: ' +
  REACHABLE_RULES.map((rule, i) => `(${i + 1}) ${rule.reachable} when ${rule.when}`).join('; ');

const resultSchema: JsonSchema = {
  type: 'object',
  required: [...FIELDS],
  additionalProperties: false,
  properties: {
    email: { type: 'string', description: 'The input address, as given' },
    domain: {
      type: 'string',
      description: "Domain part of the address, lower case, IDN in punycode; '' when there is none",
    },
    reachable: {
      type: 'string',
      enum: ['safe', 'risky', 'invalid', 'unknown'],
      description: REACHABLE_DESCRIPTION,
    },
    disposable: { type: 'boolean', description: 'Provided by a known disposable-address provider' },
    roleAccount: { type: 'boolean', description: 'Team or company address rather than a person' },
    mxValid: {
      type: 'boolean',
      description: 'Domain has valid MX DNS records (or an A/AAAA record as implicit MX)',
    },
    connection: { type: 'boolean', description: 'SMTP server accepts connections' },
    inboxFull: { type: 'boolean', description: 'Recipient inbox is full' },
    catchAll: { type: 'boolean', description: 'The server accepts any address at the domain' },
    deliverable: { type: 'boolean', description: 'The server accepted the address as a recipient' },
    disabled: { type: 'boolean', description: 'Recipient inbox is disabled' },
    syntaxValid: { type: 'boolean', description: 'Address is syntactically valid' },
  },
};

const verifyRoute: RestRoute = {
  method: 'GET',
  path: '/v2/verify',
  operationId: 'verifyEmail',
  summary: 'Verify an email address (Business plan; 1 credit per address)',
  description:
    "Checks the address's syntax, its domain's mail exchangers, and asks them about the address in an SMTP " +
    'conversation that stops before DATA (never sends mail). Every answer costs 1 credit, whatever the ' +
    'verdict: an invalid syntax (decided without DNS or SMTP), a cached result, or unknown when the mail ' +
    'server gave no final answer in time. Results are cached per address (unknown ones only briefly).',
  tag: 'Email verification',
  family: 'verify',
  params: [
    serviceCheckedStringParam({
      name: 'email',
      required: true,
      description: `The address to verify, at most ${MAX_EMAIL_INPUT_LENGTH} characters`,
      maxLength: MAX_EMAIL_INPUT_LENGTH,
    }),
  ],
  operation: `query VerifyEmail($email: String!) { verifyEmail(email: $email) { ${FIELDS.join(' ')} } }`,
  variables: (values) => ({ email: values.email }),
  // The GraphQL selection is exactly the spec's fields, so the data is the documented body.
  respond: (data) => ({ status: 200, body: data.verifyEmail }),
  responses: { 200: { description: 'The email verification result', schema: resultSchema } },
};

export const VERIFY_ROUTES: RestRoute[] = [verifyRoute];
