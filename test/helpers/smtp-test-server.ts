import type { AddressInfo, Socket } from 'node:net';
import { SMTPServer, type SMTPServerSession } from 'smtp-server';

/** A reply the server sends instead of accepting. */
export interface SmtpTestReply {
  code: number;
  /** The reply text, enhanced status code included when wanted ("5.1.1 User unknown"). */
  message: string;
  /** Close the connection right after this reply, without another word (a server dropping the client). */
  dropAfter?: boolean;
}

/** What the server does with one RCPT TO: accept it (and maybe drop the connection then), or refuse it. */
export type SmtpTestRcptAction = 'accept' | 'accept-then-drop' | SmtpTestReply;

export interface SmtpTestServerOptions {
  /** Loopback address to listen on (any of 127.0.0.0/8), default 127.0.0.1. */
  host?: string;
  /** Default: an ephemeral port. */
  port?: number;
  /** 'normal' (220, the default), 'silent' (accept the TCP connection, never greet) or a refusal. */
  greeting?: 'normal' | 'silent' | SmtpTestReply;
  /** Advertise STARTTLS (with smtp-server's built-in self-signed certificate). Default false. */
  starttls?: boolean;
  /** false: EHLO is an unknown command, only HELO works. Default true. */
  ehlo?: boolean;
  /** Decides each RCPT TO; `connection` counts from 1 per server. Default: accept everything. */
  rcpt?: (address: string, context: { connection: number }) => SmtpTestRcptAction;
}

/** What the server saw of one connection. */
export interface SmtpTestSession {
  connection: number;
  /** The name the client gave in EHLO/HELO ('' when it never did). */
  helo: string;
  /** Whether the session was under TLS when MAIL FROM came. */
  secure: boolean;
  mailFrom: string | null;
  rcptTo: string[];
  /** Whether the client ever reached DATA. */
  data: boolean;
}

/**
 * A real SMTP server (smtp-server) on a loopback address for one scenario of the verifier:
 * it greets (or not), optionally offers STARTTLS, answers RCPT TO as the scenario says, and
 * records every session so tests can check what the client really did.
 */
export class SmtpTestServer {
  private constructor(
    private readonly server: SMTPServer,
    readonly host: string,
    readonly port: number,
    /** One entry per connection, in order. */
    readonly sessions: readonly SmtpTestSession[],
    private readonly load: { open: number; peak: number },
  ) {}

  /** The most TCP connections that were open at the same time. */
  get peakConnections(): number {
    return this.load.peak;
  }

  static async start(options: SmtpTestServerOptions = {}): Promise<SmtpTestServer> {
    const host = options.host ?? '127.0.0.1';
    const sessions: SmtpTestSession[] = [];
    const sessionOf = (session: SMTPServerSession) =>
      sessions.find((s) => s.connection === connectionNumber(session));
    const connectionNumbers = new Map<string, number>();
    const connectionNumber = (session: SMTPServerSession) => connectionNumbers.get(session.id) ?? 0;

    const server: SMTPServer = new SMTPServer({
      logger: false,
      authOptional: true,
      disabledCommands: options.ehlo === false ? ['AUTH', 'EHLO'] : ['AUTH'],
      hideSTARTTLS: !options.starttls,
      // Short server-side timeouts: a test that leaves a connection open must not hold the suite.
      socketTimeout: 5000,
      closeTimeout: 200,
      onConnect(session, callback) {
        connectionNumbers.set(session.id, connectionNumbers.size + 1);
        sessions.push({
          connection: connectionNumber(session),
          helo: '',
          secure: false,
          mailFrom: null,
          rcptTo: [],
          data: false,
        });
        const greeting = options.greeting ?? 'normal';
        if (greeting === 'silent') return;
        if (greeting === 'normal') return callback();
        callback(replyError(greeting));
      },
      onMailFrom(address, session, callback) {
        const record = sessionOf(session);
        if (record) {
          record.helo = session.hostNameAppearsAs ?? '';
          record.secure = session.secure;
          record.mailFrom = address.address;
        }
        callback();
      },
      onRcptTo(address, session, callback) {
        sessionOf(session)?.rcptTo.push(address.address);
        const action = options.rcpt?.(address.address, { connection: connectionNumber(session) }) ?? 'accept';
        if (action === 'accept') return callback();
        if (action === 'accept-then-drop' || action.dropAfter) {
          // Closed on the next turn of the event loop, once the reply has been written.
          const connection = [...server.connections].find((candidate) => candidate.session === session);
          setImmediate(() => connection?.close());
        }
        if (action === 'accept-then-drop') return callback();
        callback(replyError(action));
      },
      onData(stream, session, callback) {
        const record = sessionOf(session);
        if (record) record.data = true;
        stream.resume();
        stream.on('end', () => callback());
      },
    });
    await new Promise<void>((resolve, reject) => {
      server.server.once('error', reject);
      server.listen(options.port ?? 0, host, () => {
        server.server.removeListener('error', reject);
        resolve();
      });
    });
    const load = { open: 0, peak: 0 };
    server.server.on('connection', (socket: Socket) => {
      load.open++;
      load.peak = Math.max(load.peak, load.open);
      socket.once('close', () => load.open--);
    });
    const { port } = server.server.address() as AddressInfo;
    return new SmtpTestServer(server, host, port, sessions, load);
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.server.close(() => resolve()));
  }
}

function replyError(reply: SmtpTestReply): Error {
  return Object.assign(new Error(reply.message), { responseCode: reply.code });
}
