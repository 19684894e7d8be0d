import { z } from 'zod';
import { MAX_EMAIL_INPUT_LENGTH } from '../../verify';
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
