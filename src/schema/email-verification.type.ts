import { Field, ObjectType } from 'type-graphql';
import { REACHABLE_DESCRIPTION } from '../services/verify/email-verification.service';

/** The spec's "Email verification result", field for field (GET /v2/verify/ returns exactly this). */
@ObjectType({
  description:
    "The verification of one email address: syntax, the domain's mail exchangers and an SMTP conversation " +
    'with them that stops before DATA.',
})
export class EmailVerification {
  @Field({ description: 'The input address, as given' })
  email: string;

  @Field({ description: "Domain part of the address, lower case, IDN in punycode; '' when there is none" })
  domain: string;

  @Field({ description: REACHABLE_DESCRIPTION })
  reachable: string;

  @Field({ description: 'The domain (or a parent domain) belongs to a known disposable-address provider' })
  disposable: boolean;

  @Field({ description: 'A team or function address (admin@, info@, sales@…) rather than a person' })
  roleAccount: boolean;

  @Field({ description: 'The domain can receive mail: MX records (not a null MX), or an A/AAAA record' })
  mxValid: boolean;

  @Field({ description: "An SMTP session was opened with one of the domain's mail servers" })
  connection: boolean;

  @Field({ description: 'The server refused the address because its inbox is full' })
  inboxFull: boolean;

  @Field({ description: 'The server also accepted a random address at the domain' })
  catchAll: boolean;

  @Field({ description: 'The server accepted the address as a recipient' })
  deliverable: boolean;

  @Field({ description: 'The server said the mailbox is disabled, inactive or discontinued' })
  disabled: boolean;

  @Field({ description: 'The address is syntactically valid (no DNS or SMTP is attempted otherwise)' })
  syntaxValid: boolean;
}
