import { EmailVerificationResolver } from '../../resolvers/email-verification.resolver';
import { project } from '../../services/platform/published-shape';
import { EmailVerificationShape, VerifyEmailRequest } from '../../services/verify/verify.contract';
import type { AnyRoute } from '../route';

export const VERIFY_ROUTES: AnyRoute[] = [
  {
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
    request: VerifyEmailRequest,
    resolver: [EmailVerificationResolver, 'verifyEmail'],
    present: (result) => ({ status: 200, body: project(EmailVerificationShape, result) }),
    responses: { 200: { description: 'The email verification result', shape: EmailVerificationShape } },
  },
];
