import { createServer, type Server, type Socket } from 'node:net';
import { ValidationError } from '../../../src/errors';
import { EmailVerifier, type EmailVerificationResult, type EmailVerifierOptions } from '../../../src/verify';
import { DnsTestServer } from '../../helpers/dns-test-server';
import {
  SmtpTestServer,
  type SmtpTestRcptAction,
  type SmtpTestReply,
  type SmtpTestServerOptions,
} from '../../helpers/smtp-test-server';

/**
 * Every scenario is a domain in a real DNS server whose MX host resolves to its own loopback
 * address (127.0.0.x), where a real SMTP server plays the scenario. All SMTP servers share one
 * port, so the verifier runs with its production settings: one SMTP port, MX resolution through
 * DNS_SERVERS, addresses of MX hosts through the same resolver.
 */
const HELO_NAME = 'verifier.test';
const MAIL_FROM = 'probe@verifier.test';
const UNKNOWN_USER: SmtpTestReply = {
  code: 550,
  message: '5.1.1 <x>: Recipient address rejected: User unknown',
};

/** A server that accepts `users` and answers anything else (the catch-all probe) with `others`. */
function mailbox(
  users: string[],
  reply: SmtpTestRcptAction = 'accept',
  others: SmtpTestRcptAction = UNKNOWN_USER,
) {
  return (address: string): SmtpTestRcptAction => (users.includes(address) ? reply : others);
}

/** The result of a verification that reached a mail server, with the fields a test overrides. */
function reached(
  email: string,
  domain: string,
  fields: Partial<EmailVerificationResult>,
): EmailVerificationResult {
  return {
    email,
    domain,
    reachable: 'safe',
    disposable: false,
    roleAccount: false,
    mxValid: true,
    connection: true,
    inboxFull: false,
    catchAll: false,
    deliverable: true,
    disabled: false,
    syntaxValid: true,
    ...fields,
  };
}

function notReached(
  email: string,
  domain: string,
  fields: Partial<EmailVerificationResult>,
): EmailVerificationResult {
  return reached(email, domain, { connection: false, deliverable: false, reachable: 'unknown', ...fields });
}

/**
 * A bare SMTP server for behaviours smtp-server cannot show (TLS that breaks after "220 go
 * ahead", dropping every connection): `answer` returns the reply to each command line, 'drop'
 * to close the connection without one, or 'break-tls' to agree to STARTTLS and then answer the
 * TLS handshake with clear text.
 */
async function scriptedSmtpServer(
  host: string,
  port: number,
  answer: (line: string, connection: number) => string | 'drop' | 'break-tls',
): Promise<{ server: Server; connections: () => number; commands: string[] }> {
  let connections = 0;
  const commands: string[] = [];
  const sockets = new Set<Socket>();
  const server = createServer((socket) => {
    const connection = ++connections;
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    socket.on('error', () => undefined);
    socket.write('220 scripted.test ESMTP\r\n');
    let buffer = '';
    let tlsBroken = false;
    socket.on('data', (chunk) => {
      if (tlsBroken) {
        socket.end('this is not TLS\r\n');
        return;
      }
      buffer += chunk.toString('latin1');
      let newline: number;
      while ((newline = buffer.indexOf('\r\n')) >= 0) {
        const line = buffer.slice(0, newline);
        buffer = buffer.slice(newline + 2);
        commands.push(line);
        const reply = answer(line, connection);
        if (reply === 'drop') {
          socket.destroy();
          return;
        }
        if (reply === 'break-tls') {
          tlsBroken = true;
          socket.write('220 2.0.0 Ready to start TLS\r\n');
          return;
        }
        socket.write(`${reply}\r\n`);
      }
    });
  });
  server.on('close', () => sockets.forEach((socket) => socket.destroy()));
  await new Promise<void>((resolve) => server.listen(port, host, resolve));
  return { server, connections: () => connections, commands };
}

describe('EmailVerifier against real DNS and SMTP servers', () => {
  let dns: DnsTestServer;
  let smtpPort: number;
  const servers = new Map<string, SmtpTestServer>();
  const scripted = new Map<string, Awaited<ReturnType<typeof scriptedSmtpServer>>>();

  /** A scripted server for `domain` on the next loopback address, its MX pointing there. */
  async function scriptedScenario(domain: string, answer: Parameters<typeof scriptedSmtpServer>[2]) {
    const host = `127.0.0.${nextAddress++}`;
    scripted.set(domain, await scriptedSmtpServer(host, smtpPort, answer));
    dns.add(domain, 'MX', `10 mx.${domain}`).add(`mx.${domain}`, 'A', host);
  }

  /** Ordinary replies of a server that accepts `user` only. */
  const conversation = (line: string, user: string, ehlo = '250 scripted.test') => {
    const command = line.slice(0, 4).toUpperCase();
    if (command === 'EHLO') return ehlo;
    if (command === 'MAIL') return '250 2.1.0 Ok';
    if (command === 'RCPT')
      return line.includes(`<${user}>`) ? '250 2.1.5 Ok' : UNKNOWN_USER.code + ' ' + UNKNOWN_USER.message;
    if (command === 'QUIT') return '221 2.0.0 Bye';
    return '502 5.5.2 Command not recognized';
  };
  let verifier: EmailVerifier;
  let nextAddress = 11;

  /** Starts a server for `domain` on the next loopback address, its MX pointing there. */
  async function scenario(domain: string, options: SmtpTestServerOptions = {}): Promise<SmtpTestServer> {
    const host = `127.0.0.${nextAddress++}`;
    const server = await SmtpTestServer.start({ ...options, host, port: smtpPort });
    servers.set(domain, server);
    dns.add(domain, 'MX', `10 mx.${domain}`).add(`mx.${domain}`, 'A', host);
    return server;
  }

  function verifierWith(options: EmailVerifierOptions = {}): EmailVerifier {
    return new EmailVerifier({
      dnsServers: [dns.address],
      // Generous per-step limits: only the silent server waits for one, and a loaded CI machine
      // must not turn a slow answer into a different verdict.
      dnsTimeoutMs: 2000,
      dnsTries: 1,
      smtpPort,
      heloName: HELO_NAME,
      mailFrom: MAIL_FROM,
      connectTimeoutMs: 2000,
      replyTimeoutMs: 1000,
      totalTimeoutMs: 8000,
      domainIntervalMs: 0,
      // Every mail server of these tests is on loopback, which only the operator can allow.
      allowPrivateTargets: true,
      ...options,
    });
  }

  beforeAll(async () => {
    dns = await DnsTestServer.start();
    // The first server picks a free port; every other scenario listens on it at its own address.
    const first = await SmtpTestServer.start({
      host: '127.0.0.10',
      rcpt: mailbox(['alice@accepted.test', 'admin@accepted.test']),
    });
    smtpPort = first.port;
    servers.set('accepted.test', first);
    dns.add('accepted.test', 'MX', '10 mx.accepted.test').add('mx.accepted.test', 'A', first.host);

    await scenario('unknown.test', { rcpt: () => UNKNOWN_USER });
    await scenario('catchall.test', { rcpt: () => 'accept' });
    await scenario('full552.test', {
      rcpt: mailbox(['bob@full552.test'], { code: 552, message: '5.2.2 <bob@full552.test>: Mailbox full' }),
    });
    await scenario('full452.test', {
      rcpt: mailbox(['bob@full452.test'], { code: 452, message: '4.2.2 The email account is over quota' }),
    });
    await scenario('disabled.test', {
      rcpt: mailbox(['carol@disabled.test'], {
        code: 550,
        message: '5.2.1 Mailbox disabled, not accepting messages',
      }),
    });
    await scenario('unavailable.test', {
      rcpt: () => ({ code: 550, message: 'Requested action not taken: mailbox unavailable' }),
    });
    await scenario('greylist450.test', {
      rcpt: () => ({ code: 450, message: '4.2.0 Greylisted, please try again later' }),
    });
    await scenario('greylist451.test', {
      rcpt: () => ({ code: 451, message: '4.7.1 Try again later (greylisting)' }),
    });
    await scenario('blocklisted.test', {
      greeting: {
        code: 554,
        message: '5.7.1 Service unavailable; client host blocked using zen.spamhaus.org',
      },
    });
    await scenario('silent.test', { greeting: 'silent' });
    await scenario('drop.test', {
      rcpt: (address, { connection }) => {
        if (connection === 1) return { ...UNKNOWN_USER, dropAfter: true };
        return address === 'dave@drop.test' ? 'accept' : UNKNOWN_USER;
      },
    });
    await scenario('starttls.test', { starttls: true, rcpt: mailbox(['erin@starttls.test']) });
    await scenario('helo.test', { ehlo: false, rcpt: mailbox(['frank@helo.test']) });
    await scenario('mailinator.com', { rcpt: mailbox(['grace@mailinator.com']) });
    // smtp-server shows punycode domains in Unicode.
    await scenario('xn--bcher-kva.test', { rcpt: mailbox(['heidi@bücher.test']) });
    await scenario('policy.test', {
      rcpt: () => ({ code: 550, message: '5.7.1 Message rejected due to local policy' }),
    });

    // Nothing listens on 127.0.0.2: connecting there is refused.
    dns.add('refused.test', 'MX', '10 mx.refused.test').add('mx.refused.test', 'A', '127.0.0.2');

    // No MX, but an A record: the domain itself is the mail host.
    const implicit = await SmtpTestServer.start({
      host: `127.0.0.${nextAddress++}`,
      port: smtpPort,
      rcpt: mailbox(['ivan@implicit.test']),
    });
    servers.set('implicit.test', implicit);
    dns.add('implicit.test', 'A', implicit.host).add('implicit.test', 'TXT', '"v=spf1 a -all"');

    // Preference order and fall-through: 5 is refused, 10 must be used, 20 never.
    const primary = await SmtpTestServer.start({
      host: `127.0.0.${nextAddress++}`,
      port: smtpPort,
      rcpt: mailbox(['judy@multi.test']),
    });
    const backup = await SmtpTestServer.start({
      host: `127.0.0.${nextAddress++}`,
      port: smtpPort,
      rcpt: mailbox(['judy@multi.test']),
    });
    servers.set('multi.test', primary);
    servers.set('multi-backup', backup);
    dns.zone(
      `
      @       MX 20 backup
      @       MX 5  down
      @       MX 10 primary
      down    A  127.0.0.2
      primary A  ${primary.host}
      backup  A  ${backup.host}
      `,
      'multi.test',
    );

    await scriptedScenario('brokentls.test', (line, connection) => {
      if (line === 'STARTTLS' && connection === 1) return 'break-tls';
      return conversation(line, 'tina@brokentls.test', '250-scripted.test\r\n250 STARTTLS');
    });
    await scriptedScenario('dropalways.test', (line) =>
      line.startsWith('RCPT') ? 'drop' : conversation(line, ''),
    );
    await scriptedScenario('closing.test', (line) =>
      line.startsWith('RCPT')
        ? '421 4.3.2 Service shutting down, closing transmission channel'
        : conversation(line, ''),
    );

    dns.add('nullmx.test', 'MX', '0 .').add('nullmx.test', 'A', '127.0.0.10');
    dns.add('servfail.test', 'MX', '10 mx.accepted.test').fail('servfail.test', 'SERVFAIL');
    dns.add('noaddress.test', 'TXT', '"just text"');

    verifier = verifierWith();
  });

  afterAll(async () => {
    await Promise.all([...servers.values()].map((server) => server.close()));
    await Promise.all(
      [...scripted.values()].map(
        ({ server }) => new Promise<void>((resolve) => server.close(() => resolve())),
      ),
    );
    await dns.close();
  });

  const server = (domain: string) => servers.get(domain) as SmtpTestServer;

  it('accepted: safe, with the configured HELO name and sender, never DATA', async () => {
    const result = await verifier.verify('alice@accepted.test');
    expect(result).toEqual(reached('alice@accepted.test', 'accepted.test', {}));
    const [session] = server('accepted.test').sessions;
    expect(session).toMatchObject({ helo: HELO_NAME, mailFrom: MAIL_FROM, data: false, secure: false });
    // The catch-all probe first (a random address at the domain), then the address.
    expect(session.rcptTo).toHaveLength(2);
    expect(session.rcptTo[0]).toMatch(/^[a-z0-9-]+@accepted\.test$/);
    expect(session.rcptTo[0]).not.toBe('alice@accepted.test');
    expect(session.rcptTo[1]).toBe('alice@accepted.test');
  });

  it('unknown user (550 5.1.1): invalid', async () => {
    await expect(verifier.verify('nosuchuser@unknown.test')).resolves.toEqual(
      reached('nosuchuser@unknown.test', 'unknown.test', { deliverable: false, reachable: 'invalid' }),
    );
  });

  it('catch-all server: accepted but risky', async () => {
    await expect(verifier.verify('anyone@catchall.test')).resolves.toEqual(
      reached('anyone@catchall.test', 'catchall.test', { catchAll: true, reachable: 'risky' }),
    );
  });

  it('full inbox, permanent (552 5.2.2): risky, not deliverable', async () => {
    await expect(verifier.verify('bob@full552.test')).resolves.toEqual(
      reached('bob@full552.test', 'full552.test', {
        inboxFull: true,
        deliverable: false,
        reachable: 'risky',
      }),
    );
  });

  it('full inbox, temporary (452 4.2.2): risky, not deliverable', async () => {
    await expect(verifier.verify('bob@full452.test')).resolves.toEqual(
      reached('bob@full452.test', 'full452.test', {
        inboxFull: true,
        deliverable: false,
        reachable: 'risky',
      }),
    );
  });

  it('disabled mailbox (550 5.2.1): invalid', async () => {
    await expect(verifier.verify('carol@disabled.test')).resolves.toEqual(
      reached('carol@disabled.test', 'disabled.test', {
        disabled: true,
        deliverable: false,
        reachable: 'invalid',
      }),
    );
  });

  it('mailbox unavailable (550 without an enhanced code): invalid', async () => {
    await expect(verifier.verify('dan@unavailable.test')).resolves.toEqual(
      reached('dan@unavailable.test', 'unavailable.test', { deliverable: false, reachable: 'invalid' }),
    );
  });

  it.each(['greylist450.test', 'greylist451.test'])(
    'greylisting (%s): unknown, never invalid',
    async (domain) => {
      await expect(verifier.verify(`eve@${domain}`)).resolves.toEqual(
        reached(`eve@${domain}`, domain, { deliverable: false, reachable: 'unknown' }),
      );
    },
  );

  it('policy refusal of the recipient (550 5.7.1): unknown, the address is not judged', async () => {
    await expect(verifier.verify('eve@policy.test')).resolves.toEqual(
      reached('eve@policy.test', 'policy.test', { deliverable: false, reachable: 'unknown' }),
    );
  });

  it('blocklisted at the greeting (554): no connection, unknown, nothing asked', async () => {
    await expect(verifier.verify('eve@blocklisted.test')).resolves.toEqual(
      notReached('eve@blocklisted.test', 'blocklisted.test', {}),
    );
    expect(server('blocklisted.test').sessions).toEqual([
      { connection: 1, helo: '', secure: false, mailFrom: null, rcptTo: [], data: false },
    ]);
  });

  it('MX hosts on private or loopback addresses are never contacted unless allowed', async () => {
    const guarded = verifierWith({ allowPrivateTargets: false, cacheTtlSeconds: 0 });
    const before = server('accepted.test').sessions.length;
    await expect(guarded.verify('alice@accepted.test')).resolves.toEqual(
      notReached('alice@accepted.test', 'accepted.test', {}),
    );
    expect(server('accepted.test').sessions).toHaveLength(before);
  });

  it('connection refused: unknown', async () => {
    await expect(verifier.verify('eve@refused.test')).resolves.toEqual(
      notReached('eve@refused.test', 'refused.test', {}),
    );
  });

  it('no greeting (reply timeout): unknown', async () => {
    await expect(verifier.verify('eve@silent.test')).resolves.toEqual(
      notReached('eve@silent.test', 'silent.test', {}),
    );
    expect(server('silent.test').sessions).toHaveLength(1);
  });

  it('connection dropped after the probe: reconnects once and asks only for the address', async () => {
    await expect(verifier.verify('dave@drop.test')).resolves.toEqual(
      reached('dave@drop.test', 'drop.test', {}),
    );
    const sessions = server('drop.test').sessions;
    expect(sessions).toHaveLength(2);
    expect(sessions[0].rcptTo).toHaveLength(1);
    expect(sessions[0].rcptTo[0]).not.toBe('dave@drop.test');
    expect(sessions[1].rcptTo).toEqual(['dave@drop.test']);
  });

  it('STARTTLS that breaks: reconnects once and asks in clear text', async () => {
    await expect(verifier.verify('tina@brokentls.test')).resolves.toEqual(
      reached('tina@brokentls.test', 'brokentls.test', {}),
    );
    const { connections, commands } = scripted.get('brokentls.test')!;
    expect(connections()).toBe(2);
    expect(commands.filter((command) => command === 'STARTTLS')).toHaveLength(1);
  });

  it('a server that drops every connection: one reconnect only, then unknown', async () => {
    await expect(verifier.verify('uma@dropalways.test')).resolves.toEqual(
      reached('uma@dropalways.test', 'dropalways.test', { deliverable: false, reachable: 'unknown' }),
    );
    expect(scripted.get('dropalways.test')!.connections()).toBe(2);
  });

  it('421 to the catch-all probe: stops asking, unknown', async () => {
    await expect(verifier.verify('vic@closing.test')).resolves.toEqual(
      reached('vic@closing.test', 'closing.test', { deliverable: false, reachable: 'unknown' }),
    );
    const { commands } = scripted.get('closing.test')!;
    expect(commands.filter((command) => command.startsWith('RCPT'))).toHaveLength(1);
    expect(commands).not.toContain('RCPT TO:<vic@closing.test>');
  });

  it('STARTTLS offered: upgrades (self-signed certificate accepted) before MAIL FROM', async () => {
    await expect(verifier.verify('erin@starttls.test')).resolves.toEqual(
      reached('erin@starttls.test', 'starttls.test', {}),
    );
    expect(server('starttls.test').sessions[0]).toMatchObject({
      secure: true,
      helo: HELO_NAME,
      mailFrom: MAIL_FROM,
    });
  });

  it('EHLO refused: falls back to HELO', async () => {
    await expect(verifier.verify('frank@helo.test')).resolves.toEqual(
      reached('frank@helo.test', 'helo.test', {}),
    );
    expect(server('helo.test').sessions[0]).toMatchObject({ helo: HELO_NAME, mailFrom: MAIL_FROM });
  });

  it('no MX but an A record: the domain itself is the mail host (implicit MX)', async () => {
    await expect(verifier.verify('ivan@implicit.test')).resolves.toEqual(
      reached('ivan@implicit.test', 'implicit.test', {}),
    );
    expect(server('implicit.test').sessions).toHaveLength(1);
  });

  it('MX hosts in preference order, moving past one that cannot be reached', async () => {
    await expect(verifier.verify('judy@multi.test')).resolves.toEqual(
      reached('judy@multi.test', 'multi.test', {}),
    );
    expect(server('multi.test').sessions).toHaveLength(1);
    expect(server('multi-backup').sessions).toHaveLength(0);
  });

  it('null MX: invalid without any SMTP, nor address lookups', async () => {
    await expect(verifier.verify('kim@nullmx.test')).resolves.toEqual(
      notReached('kim@nullmx.test', 'nullmx.test', { mxValid: false, reachable: 'invalid' }),
    );
    expect(dns.queriesFor('nullmx.test').map((query) => query.type)).toEqual(['MX']);
  });

  it('NXDOMAIN: invalid', async () => {
    await expect(verifier.verify('kim@nxdomain.test')).resolves.toEqual(
      notReached('kim@nxdomain.test', 'nxdomain.test', { mxValid: false, reachable: 'invalid' }),
    );
  });

  it('no MX and no address: invalid', async () => {
    await expect(verifier.verify('kim@noaddress.test')).resolves.toEqual(
      notReached('kim@noaddress.test', 'noaddress.test', { mxValid: false, reachable: 'invalid' }),
    );
  });

  it('temporary DNS failure (SERVFAIL): unknown, not invalid', async () => {
    await expect(verifier.verify('kim@servfail.test')).resolves.toEqual(
      notReached('kim@servfail.test', 'servfail.test', { mxValid: false, reachable: 'unknown' }),
    );
  });

  it('role address: accepted but risky', async () => {
    await expect(verifier.verify('admin@accepted.test')).resolves.toEqual(
      reached('admin@accepted.test', 'accepted.test', { roleAccount: true, reachable: 'risky' }),
    );
  });

  it('disposable domain: accepted but risky', async () => {
    await expect(verifier.verify('grace@mailinator.com')).resolves.toEqual(
      reached('grace@mailinator.com', 'mailinator.com', { disposable: true, reachable: 'risky' }),
    );
  });

  it.each([
    'not-an-address',
    'a..b@accepted.test',
    'alice@accepted',
    'alice@-accepted.test',
    '@accepted.test',
  ])('bad syntax (%s): invalid without DNS or SMTP', async (email) => {
    const queriesBefore = dns.queries.length;
    const sessionsBefore = server('accepted.test').sessions.length;
    await expect(verifier.verify(email)).resolves.toEqual({
      email,
      domain: email.includes('@') ? email.slice(email.lastIndexOf('@') + 1) : '',
      reachable: 'invalid',
      disposable: false,
      roleAccount: false,
      mxValid: false,
      connection: false,
      inboxFull: false,
      catchAll: false,
      deliverable: false,
      disabled: false,
      syntaxValid: false,
    });
    expect(dns.queries.length).toBe(queriesBefore);
    expect(server('accepted.test').sessions.length).toBe(sessionsBefore);
  });

  it('IDN domain: verified in punycode, reported in punycode', async () => {
    await expect(verifier.verify('heidi@Bücher.test')).resolves.toEqual(
      reached('heidi@Bücher.test', 'xn--bcher-kva.test', {}),
    );
    expect(dns.queriesFor('xn--bcher-kva.test').map((query) => query.type)).toEqual(['MX']);
    expect(server('xn--bcher-kva.test').sessions[0].rcptTo[1]).toBe('heidi@bücher.test');
  });

  it('throws ValidationError(email) only for a missing or oversized input', async () => {
    await expect(verifier.verify('')).rejects.toMatchObject({ parameter: 'email' });
    await expect(verifier.verify('')).rejects.toBeInstanceOf(ValidationError);
    await expect(verifier.verify(`${'a'.repeat(64)}@${'b'.repeat(252)}.com`)).rejects.toBeInstanceOf(
      ValidationError,
    );
    // 320 characters is still an input, just not a valid address (the domain is over 255).
    await expect(verifier.verify(`${'a'.repeat(64)}@${'b'.repeat(251)}.com`)).resolves.toMatchObject({
      syntaxValid: false,
      reachable: 'invalid',
    });
  });

  it('reuses a cached result instead of probing again, and shares a probe between concurrent calls', async () => {
    const cached = verifierWith();
    const before = server('catchall.test').sessions.length;
    const [first, second] = await Promise.all([
      cached.verify('zoe@catchall.test'),
      cached.verify('zoe@catchall.test'),
    ]);
    const third = await cached.verify('zoe@catchall.test');
    expect(second).toEqual(first);
    expect(third).toEqual(first);
    expect(server('catchall.test').sessions.length).toBe(before + 1);
  });

  it('with the cache disabled, probes every time', async () => {
    const uncached = verifierWith({ cacheTtlSeconds: 0 });
    const before = server('catchall.test').sessions.length;
    await uncached.verify('yan@catchall.test');
    await uncached.verify('yan@catchall.test');
    expect(server('catchall.test').sessions.length).toBe(before + 2);
  });

  it('never opens more connections to one domain than its concurrency allows', async () => {
    const limited = verifierWith({ domainConcurrency: 1 });
    const emails = ['p1', 'p2', 'p3', 'p4'].map((user) => `${user}@catchall.test`);
    const results = await Promise.all(emails.map((email) => limited.verify(email)));
    expect(results.map((result) => result.reachable)).toEqual(['risky', 'risky', 'risky', 'risky']);
    expect(server('catchall.test').peakConnections).toBe(1);
  });

  it('bounds the whole verification even when each step may wait longer', async () => {
    const bounded = verifierWith({ replyTimeoutMs: 120_000, totalTimeoutMs: 1000 });
    await expect(bounded.verify('late@silent.test')).resolves.toMatchObject({
      connection: false,
      deliverable: false,
      reachable: 'unknown',
    });
  }, 20_000);
});
