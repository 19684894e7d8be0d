import type { GraphQLSchema } from 'graphql';
import { MAX_EMAIL_INPUT_LENGTH, REACHABLE_VALUES } from '../../services/verify/email-verification.service';
import { jsonSchemaOf, selectionOf } from '../graphql-shape';
import type { JsonSchema } from '../json-schema';
import { serviceCheckedStringParam } from '../params';
import type { RestRoute } from '../route';

/**
 * The spec's result is the GraphQL EmailVerification type field for field (its descriptions
 * included), so the selection and the published schema are both read from it; the schema only adds
 * what GraphQL cannot say: `reachable` is one of four words, and no other field is sent.
 */
function resultSchema(schema: GraphQLSchema): JsonSchema {
  const result = jsonSchemaOf(schema, 'EmailVerification');
  const properties = result.properties!;
  return {
    ...result,
    additionalProperties: false,
    properties: { ...properties, reachable: { ...properties.reachable, enum: [...REACHABLE_VALUES] } },
  };
}

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
  operation: (schema) =>
    `query VerifyEmail($email: String!) { verifyEmail(email: $email) { ${selectionOf(schema, 'EmailVerification')} } }`,
  variables: (values) => ({ email: values.email }),
  // The GraphQL selection is exactly the spec's fields, so the data is the documented body.
  respond: (data) => ({ status: 200, body: data.verifyEmail }),
  responses: { 200: { description: 'The email verification result', schema: resultSchema } },
};

export const VERIFY_ROUTES: RestRoute[] = [verifyRoute];
