import { createServer, type AddressInfo, type Server, type Socket } from 'node:net';
import { SmtpConnection, SmtpConnectionError } from '../../../src/verify/smtp-connection-client';

/**
 * The SMTP client against raw TCP servers that write exactly the bytes a test wants, to pin
 * down reply parsing (multi-line, split packets, garbage) and failure kinds.
 */
describe('SmtpConnection', () => {
  let server: Server;
  let port: number;
  let onClient: (socket: Socket) => void;
  const sockets = new Set<Socket>();

  beforeAll(async () => {
    server = createServer((socket) => {
      sockets.add(socket);
      socket.on('close', () => sockets.delete(socket));
      onClient(socket);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });

  afterAll(async () => {
    for (const socket of sockets) socket.destroy();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  });

  function open(options: { replyTimeoutMs?: number; signal?: AbortSignal; port?: number } = {}) {
    return SmtpConnection.open({
      address: '127.0.0.1',
      port: options.port ?? port,
      hostName: 'mx.example.test',
      connectTimeoutMs: 1000,
      replyTimeoutMs: options.replyTimeoutMs ?? 1000,
      signal: options.signal ?? new AbortController().signal,
    });
  }

  it('reads multi-line replies, whatever the packet boundaries, with their enhanced code', async () => {
    onClient = (socket) => {
      socket.write('220 mx.example.test ESMTP\r\n');
      socket.once('data', () => {
        // One reply split in the middle of lines, then a reply with bare LF line ends.
        socket.write('250-mx.example.test greets you\r\n250-PIPE');
        setTimeout(() => socket.write('LINING\r\n250-STARTTLS\r\n250 8BITMIME\r\n'), 20);
        socket.once('data', () =>
          socket.write('550-5.1.1 The email account that you tried\n550 5.1.1 to reach does not exist\n'),
        );
      });
    };
    const connection = await open();
    await expect(connection.readReply()).resolves.toEqual({
      code: 220,
      enhancedCode: null,
      text: 'mx.example.test ESMTP',
    });
    await expect(connection.command('EHLO verifier.test')).resolves.toEqual({
      code: 250,
      enhancedCode: null,
      text: 'mx.example.test greets you\nPIPELINING\nSTARTTLS\n8BITMIME',
    });
    await expect(connection.command('RCPT TO:<x@example.test>')).resolves.toEqual({
      code: 550,
      enhancedCode: '5.1.1',
      text: '5.1.1 The email account that you tried\n5.1.1 to reach does not exist',
    });
    connection.close();
  });

  it('keeps replies that arrive before they are asked for (a greeting with the connection)', async () => {
    // The server writes and closes: its socket closes only once the client has read to the end
    // (the client answers the server's FIN with its own), so every reply has arrived by then.
    let serverClosed!: () => void;
    const readToTheEnd = new Promise<void>((resolve) => (serverClosed = resolve));
    onClient = (socket) => {
      socket.once('close', () => serverClosed());
      socket.end('220-first\r\n220 second\r\n421 4.3.2 going away\r\n');
    };
    const connection = await open();
    await readToTheEnd;
    await expect(connection.readReply()).resolves.toMatchObject({ code: 220, text: 'first\nsecond' });
    await expect(connection.readReply()).resolves.toMatchObject({ code: 421, enhancedCode: '4.3.2' });
    connection.close();
  });

  it('fails with kind "protocol" on lines that are not SMTP replies', async () => {
    onClient = (socket) => socket.write('HTTP/1.1 400 Bad Request\r\n');
    const connection = await open();
    await expect(connection.readReply()).rejects.toMatchObject({ kind: 'protocol' });
  });

  it('fails with kind "protocol" when a continuation line changes the code', async () => {
    onClient = (socket) => socket.write('250-one\r\n251 two\r\n');
    const connection = await open();
    await expect(connection.readReply()).rejects.toMatchObject({ kind: 'protocol' });
  });

  it('fails with kind "protocol" on an endless line instead of buffering it', async () => {
    onClient = (socket) => socket.write(`220 ${'x'.repeat(70 * 1024)}`);
    const connection = await open();
    await expect(connection.readReply()).rejects.toMatchObject({ kind: 'protocol' });
  });

  it('fails with kind "timeout" when a reply does not come', async () => {
    onClient = () => undefined;
    const connection = await open({ replyTimeoutMs: 100 });
    await expect(connection.readReply()).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('fails with kind "timeout" when the overall signal aborts, whatever the reply timeout', async () => {
    onClient = () => undefined;
    const controller = new AbortController();
    const connection = await open({ replyTimeoutMs: 120_000, signal: controller.signal });
    const reply = connection.readReply();
    controller.abort();
    await expect(reply).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('fails with kind "closed" when the server hangs up, for the pending read and later commands', async () => {
    onClient = (socket) => {
      socket.write('220 hello\r\n');
      socket.once('data', () => socket.end());
    };
    const connection = await open();
    await connection.readReply();
    await expect(connection.command('EHLO verifier.test')).rejects.toMatchObject({ kind: 'closed' });
    await expect(connection.command('QUIT')).rejects.toBeInstanceOf(SmtpConnectionError);
  });

  it('fails with kind "unreachable" when the connection is refused', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const unusedPort = (closed.address() as AddressInfo).port;
    await new Promise<void>((resolve) => closed.close(() => resolve()));
    await expect(open({ port: unusedPort })).rejects.toMatchObject({ kind: 'unreachable' });
  });

  it('fails with kind "tls" when the server does not speak TLS after agreeing to STARTTLS', async () => {
    onClient = (socket) => {
      socket.write('220 hello\r\n');
      socket.once('data', () => {
        socket.write('220 2.0.0 Ready to start TLS\r\n');
        socket.once('data', () => socket.end('this is not a TLS record\r\n'));
      });
    };
    const connection = await open();
    await connection.readReply();
    await expect(connection.command('STARTTLS')).resolves.toMatchObject({ code: 220 });
    await expect(connection.startTls()).rejects.toMatchObject({ kind: 'tls' });
  });
});
