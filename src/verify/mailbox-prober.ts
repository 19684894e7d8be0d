import { isPrivateAddress } from '../fetch/private-address-guard';
import type { HostAddresses } from './mail-exchange-lookup';
import { SmtpConnection, SmtpConnectionError, type SmtpReply } from './smtp-connection-client';

export interface MailboxProbeOptions {
  port: number;
  /** Our name in EHLO/HELO. */
  heloName: string;
  /** The reverse path of MAIL FROM. */
  mailFrom: string;
  connectTimeoutMs: number;
  replyTimeoutMs: number;
  /** MX hosts tried at most (in preference order). */
  maxHosts: number;
  resolveAddresses(host: string): Promise<HostAddresses>;
  /**
   * Connect to private, loopback and link-local addresses (ALLOW_PRIVATE_TARGETS). A domain's owner
   * chooses its MX records, so without the guard anyone could make the service open SMTP sessions
   * inside its own network.
   */
  allowPrivateTargets: boolean;
  /** The verification's overall bound. */
  signal: AbortSignal;
}

export interface MailboxProbeOutcome {
  /** An SMTP session was opened (a 2xx greeting) with one of the hosts. */
  connection: boolean;
  /** Reply to RCPT TO for a random address at the domain. */
  catchAllReply: SmtpReply | null;
  /** Reply to RCPT TO for the address. */
  addressReply: SmtpReply | null;
  /** Why the address has no reply, for logs; null when it has one. */
  failure: string | null;
}

/** The server refused the session before any recipient could be asked. */
class SessionRefusedError extends Error {
  constructor(stage: 'greeting' | 'helo' | 'mail-from', reply: SmtpReply) {
    super(`${stage} refused: ${reply.code} ${reply.text.split('\n')[0]}`);
  }
}

/**
 * Asks the domain's mail servers whether they accept `address`, without sending anything:
 * greeting, EHLO (HELO when EHLO is refused), STARTTLS when offered, MAIL FROM, RCPT TO for a
 * random address (catch-all probe) then for the address, QUIT. Never DATA.
 *
 * A host that cannot be reached, does not greet in time, or refuses the session at the greeting
 * (RFC 5321 section 3.1 lets the client try another MX then) moves on to the next host. Once a
 * host greeted us, its answers are final, except that a connection dropped between commands is
 * opened again once and the conversation resumes with the recipients not yet answered.
 */
export async function probeMailbox(
  hosts: string[],
  recipients: { address: string; catchAllProbe: string },
  options: MailboxProbeOptions,
): Promise<MailboxProbeOutcome> {
  let failure = 'no mail host address';
  for (const host of hosts.slice(0, options.maxHosts)) {
    if (options.signal.aborted) return noConnection('verification time limit reached');
    const resolved = await options.resolveAddresses(host).catch(() => null);
    if (!resolved || resolved.status !== 'found') {
      failure = `no address for ${host}`;
      continue;
    }
    for (const address of resolved.addresses) {
      if (!options.allowPrivateTargets && isPrivateAddress(address)) {
        failure = `${host} resolves to ${address}, a private, loopback, link-local or reserved address`;
        continue;
      }
      const outcome = await probeHost(host, address, recipients, options);
      if (outcome.connection || options.signal.aborted) return outcome;
      failure = outcome.failure ?? failure;
    }
  }
  return noConnection(failure);
}

async function probeHost(
  host: string,
  address: string,
  recipients: { address: string; catchAllProbe: string },
  options: MailboxProbeOptions,
): Promise<MailboxProbeOutcome> {
  const answers: { catchAll: SmtpReply | null; address: SmtpReply | null } = {
    catchAll: null,
    address: null,
  };
  let greeted = false;
  let reconnectsLeft = 1;
  let useStartTls = true;
  for (;;) {
    let connection: SmtpConnection | null = null;
    try {
      connection = await SmtpConnection.open({
        address,
        port: options.port,
        hostName: host,
        connectTimeoutMs: options.connectTimeoutMs,
        replyTimeoutMs: options.replyTimeoutMs,
        signal: options.signal,
      });
      const greeting = await connection.readReply();
      if (!isPositive(greeting)) throw new SessionRefusedError('greeting', greeting);
      greeted = true;
      await introduce(connection, options, useStartTls);
      const mail = await connection.command(`MAIL FROM:<${options.mailFrom}>`);
      if (!isPositive(mail)) throw new SessionRefusedError('mail-from', mail);
      answers.catchAll ??= await connection.command(`RCPT TO:<${recipients.catchAllProbe}>`);
      // 421 means the server is closing the channel: asking more would only hit a closed socket.
      if (answers.catchAll.code !== 421)
        answers.address ??= await connection.command(`RCPT TO:<${recipients.address}>`);
      await quit(connection);
      return {
        connection: true,
        catchAllReply: answers.catchAll,
        addressReply: answers.address,
        failure: answers.address ? null : `catch-all probe answered ${answers.catchAll.code}`,
      };
    } catch (error) {
      connection?.close();
      const message = error instanceof Error ? error.message : String(error);
      // A host that never greeted us could not be reached: the caller tries the next one.
      if (!greeted) return noConnection(message);
      const kind = error instanceof SmtpConnectionError ? error.kind : null;
      if ((kind === 'closed' || kind === 'tls') && reconnectsLeft > 0) {
        reconnectsLeft--;
        // A server whose TLS is broken usually still talks in clear text (what MTAs fall back to).
        if (kind === 'tls') useStartTls = false;
        continue;
      }
      return {
        connection: true,
        catchAllReply: answers.catchAll,
        addressReply: answers.address,
        failure: message,
      };
    }
  }
}

/** EHLO (HELO when EHLO is refused), then STARTTLS and a fresh EHLO when the server offers it. */
async function introduce(connection: SmtpConnection, options: MailboxProbeOptions, useStartTls: boolean) {
  const ehlo = await connection.command(`EHLO ${options.heloName}`);
  if (!isPositive(ehlo)) {
    const helo = await connection.command(`HELO ${options.heloName}`);
    if (!isPositive(helo)) throw new SessionRefusedError('helo', helo);
    return;
  }
  if (!useStartTls || !/^STARTTLS\b/im.test(ehlo.text)) return;
  const startTls = await connection.command('STARTTLS');
  // A server that advertises but refuses STARTTLS can still be asked in clear text.
  if (startTls.code !== 220) return;
  await connection.startTls();
  const secureEhlo = await connection.command(`EHLO ${options.heloName}`);
  if (!isPositive(secureEhlo)) throw new SessionRefusedError('helo', secureEhlo);
}

/** QUIT politely; the answers are already in, so a server that does not answer changes nothing. */
async function quit(connection: SmtpConnection): Promise<void> {
  await connection.command('QUIT').catch(() => undefined);
  connection.close();
}

function isPositive(reply: SmtpReply): boolean {
  return reply.code >= 200 && reply.code < 300;
}

function noConnection(failure: string): MailboxProbeOutcome {
  return { connection: false, catchAllReply: null, addressReply: null, failure };
}
