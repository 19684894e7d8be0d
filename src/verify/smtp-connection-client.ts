import { connect as connectTcp, Socket } from 'node:net';
import { connect as connectTls, TLSSocket } from 'node:tls';

/** One SMTP reply: all lines of a multi-line reply joined, enhanced status code (RFC 3463) if any. */
export interface SmtpReply {
  code: number;
  /** "5.1.1" when the first line starts with an enhanced status code, else null. */
  enhancedCode: string | null;
  /** The text of every line, without codes, joined by newlines. */
  text: string;
}

export type SmtpConnectionErrorKind =
  /** TCP connect refused, unreachable or timed out: the host cannot be reached. */
  | 'unreachable'
  /** A reply did not come in time, or the verification's overall bound was reached. */
  | 'timeout'
  /** The server closed the connection. */
  | 'closed'
  /** The server sent something that is not an SMTP reply. */
  | 'protocol'
  /** The STARTTLS handshake failed. */
  | 'tls';

export class SmtpConnectionError extends Error {
  constructor(
    readonly kind: SmtpConnectionErrorKind,
    message: string,
  ) {
    super(message);
    this.name = 'SmtpConnectionError';
  }
}

export interface SmtpConnectionOptions {
  /** IP address to connect to. */
  address: string;
  port: number;
  /** The MX host name, sent as TLS SNI. */
  hostName: string;
  connectTimeoutMs: number;
  replyTimeoutMs: number;
  /** Aborting destroys the connection; pending operations fail with kind 'timeout'. */
  signal: AbortSignal;
}

// RFC 5321 limits a reply line to 512 octets; real servers exceed it a little, hostile ones a lot.
const MAX_BUFFERED_CHARS = 64 * 1024;
const MAX_REPLY_LINES = 200;
const REPLY_LINE = /^([2-5][0-9]{2})(?:([ -])(.*))?$/;
const ENHANCED_CODE = /^([245]\.[0-9]{1,3}\.[0-9]{1,3})(?:\s|$)/;

/**
 * A client side SMTP connection that only knows how to exchange commands and replies. It is
 * written on node:net/node:tls rather than with a mail library because a verification probe
 * needs what those libraries hide: every reply of the conversation, and stopping before DATA.
 */
export class SmtpConnection {
  private socket: Socket;
  /** The TCP socket under the TLS one after STARTTLS, destroyed with it. */
  private readonly tcpSocket: Socket;
  private buffer = '';
  private lines: string[] = [];
  private readonly replies: SmtpReply[] = [];
  private waiter: {
    resolve: (reply: SmtpReply) => void;
    reject: (error: SmtpConnectionError) => void;
  } | null = null;
  private failure: SmtpConnectionError | null = null;
  private readonly onAbort = () =>
    this.fail(new SmtpConnectionError('timeout', 'verification time limit reached'));

  private constructor(
    socket: Socket,
    private readonly options: SmtpConnectionOptions,
  ) {
    this.socket = socket;
    this.tcpSocket = socket;
    this.attach(socket);
    options.signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Opens the TCP connection; rejects with kind 'unreachable' (or 'timeout' when aborted). */
  static open(options: SmtpConnectionOptions): Promise<SmtpConnection> {
    return new Promise((resolve, reject) => {
      if (options.signal.aborted) {
        reject(new SmtpConnectionError('timeout', 'verification time limit reached'));
        return;
      }
      const socket = connectTcp({ host: options.address, port: options.port });
      const settle = (error: SmtpConnectionError | null) => {
        clearTimeout(timer);
        options.signal.removeEventListener('abort', onAbort);
        socket.removeListener('error', onError);
        socket.removeListener('connect', onConnect);
        if (!error) {
          socket.setNoDelay(true);
          resolve(new SmtpConnection(socket, options));
          return;
        }
        socket.destroy();
        reject(error);
      };
      const onConnect = () => settle(null);
      const onError = (error: NodeJS.ErrnoException) =>
        settle(
          new SmtpConnectionError(
            'unreachable',
            `connect to ${options.address}: ${error.code ?? error.message}`,
          ),
        );
      const onAbort = () => settle(new SmtpConnectionError('timeout', 'verification time limit reached'));
      const timer = setTimeout(
        () => settle(new SmtpConnectionError('unreachable', `connect to ${options.address} timed out`)),
        options.connectTimeoutMs,
      );
      socket.once('connect', onConnect);
      socket.once('error', onError);
      options.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  get secure(): boolean {
    return this.socket instanceof TLSSocket;
  }

  /** Waits for the next reply (the greeting, or the reply to a command already sent). */
  readReply(): Promise<SmtpReply> {
    const queued = this.replies.shift();
    if (queued) return Promise.resolve(queued);
    if (this.failure) return Promise.reject(this.failure);
    return new Promise((resolve, reject) => {
      const timer = setTimeout(
        () =>
          this.fail(new SmtpConnectionError('timeout', `no reply within ${this.options.replyTimeoutMs} ms`)),
        this.options.replyTimeoutMs,
      );
      this.waiter = {
        resolve: (reply) => {
          clearTimeout(timer);
          resolve(reply);
        },
        reject: (error) => {
          clearTimeout(timer);
          reject(error);
        },
      };
    });
  }

  /** Sends one command line and returns its reply. */
  command(line: string): Promise<SmtpReply> {
    if (this.failure) return Promise.reject(this.failure);
    this.socket.write(`${line}\r\n`);
    return this.readReply();
  }

  /**
   * Upgrades the connection after the server's 220 to STARTTLS. Certificates are not verified:
   * MX hosts very often present self-signed or mismatched certificates, every MTA delivers to
   * them anyway (opportunistic TLS, RFC 3207 / RFC 7435), and a probe sends no message content,
   * so encryption here only keeps the recipient address off the wire.
   */
  startTls(): Promise<void> {
    if (this.failure) return Promise.reject(this.failure);
    const plain = this.socket;
    this.detach(plain);
    // From here the TLS socket reports every failure of the connection.
    plain.on('error', () => undefined);
    // Anything the server sent after its 220 was sent in clear text and must not be trusted.
    this.buffer = '';
    this.lines = [];
    this.replies.length = 0;
    return new Promise((resolve, reject) => {
      const secure = connectTls({
        socket: plain,
        servername: this.options.hostName,
        rejectUnauthorized: false,
      });
      this.socket = secure;
      const settle = (error: SmtpConnectionError | null) => {
        clearTimeout(timer);
        secure.removeListener('error', onError);
        secure.removeListener('close', onClose);
        secure.removeListener('secureConnect', onSecure);
        if (error) {
          this.fail(error);
          reject(this.failure);
          return;
        }
        this.attach(secure);
        resolve();
      };
      const onSecure = () => settle(null);
      const onError = (error: Error) =>
        settle(new SmtpConnectionError('tls', `TLS handshake failed: ${error.message}`));
      const onClose = () => settle(new SmtpConnectionError('tls', 'connection closed during TLS handshake'));
      const timer = setTimeout(
        () => settle(new SmtpConnectionError('timeout', 'TLS handshake timed out')),
        this.options.replyTimeoutMs,
      );
      secure.once('secureConnect', onSecure);
      secure.once('error', onError);
      secure.once('close', onClose);
    });
  }

  /** Closes the connection now (after QUIT, or when giving up). */
  close(): void {
    this.options.signal.removeEventListener('abort', this.onAbort);
    if (!this.failure) this.failure = new SmtpConnectionError('closed', 'connection closed by the client');
    this.socket.destroy();
    this.tcpSocket.destroy();
  }

  private attach(socket: Socket): void {
    socket.on('data', this.onData);
    socket.on('error', this.onSocketError);
    socket.on('close', this.onClose);
  }

  private detach(socket: Socket): void {
    socket.removeListener('data', this.onData);
    socket.removeListener('error', this.onSocketError);
    socket.removeListener('close', this.onClose);
  }

  private readonly onData = (chunk: Buffer) => {
    // latin1 maps every byte to one character, so a chunk boundary never splits a character.
    this.buffer += chunk.toString('latin1');
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.slice(newline + 1);
      this.onLine(line);
      if (this.failure) return;
    }
    if (this.buffer.length > MAX_BUFFERED_CHARS) {
      this.fail(new SmtpConnectionError('protocol', 'reply line too long'));
    }
  };

  private onLine(line: string): void {
    const match = REPLY_LINE.exec(line);
    const previous = this.lines[0];
    if (!match || (previous !== undefined && previous.slice(0, 3) !== match[1])) {
      this.fail(new SmtpConnectionError('protocol', `not an SMTP reply line: ${line.slice(0, 80)}`));
      return;
    }
    this.lines.push(line);
    if (this.lines.length > MAX_REPLY_LINES) {
      this.fail(new SmtpConnectionError('protocol', 'reply has too many lines'));
      return;
    }
    if (match[2] === '-') return;
    const texts = this.lines.map((l) => l.slice(4));
    this.lines = [];
    const reply: SmtpReply = {
      code: Number(match[1]),
      enhancedCode: ENHANCED_CODE.exec(texts[0])?.[1] ?? null,
      text: texts.join('\n'),
    };
    const waiter = this.waiter;
    this.waiter = null;
    if (waiter) waiter.resolve(reply);
    else this.replies.push(reply);
  }

  private readonly onSocketError = (error: NodeJS.ErrnoException) => {
    this.fail(new SmtpConnectionError('closed', `connection error: ${error.code ?? error.message}`));
  };

  private readonly onClose = () => {
    this.fail(new SmtpConnectionError('closed', 'connection closed by the server'));
  };

  /** The first failure wins; it rejects the pending read and every later operation. */
  private fail(error: SmtpConnectionError): void {
    if (!this.failure) this.failure = error;
    const waiter = this.waiter;
    this.waiter = null;
    waiter?.reject(this.failure);
    this.options.signal.removeEventListener('abort', this.onAbort);
    this.socket.destroy();
    this.tcpSocket.destroy();
  }
}
