import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { cleanEnv, freePort, spawnProgram } from '../../helpers/test-process';

/** The pid in a pino line: the process that wrote it (node itself, whatever npm started around it). */
const pidOf = (line: string): number => (JSON.parse(line) as { pid: number }).pid;

const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

const canListenOn = (port: number): Promise<boolean> =>
  new Promise((resolve) => {
    const server = createServer();
    server.once('error', () => resolve(false));
    server.listen(port, '127.0.0.1', () => server.close(() => resolve(true)));
  });

/**
 * `npm start` and `npm run worker` as an operator or a supervisor runs them: the signal goes to the
 * npm process, and must reach node (npm forwards it to the script's shell, which must have become
 * node with exec, or node would outlive it and keep the port).
 */
describe('npm start and npm run worker pass SIGTERM on to node', () => {
  let dir: string;
  const started: number[] = [];

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'tis-npm-'));
  });
  afterAll(() => {
    // A node left behind by a broken script is ours to end.
    for (const pid of started) if (alive(pid)) process.kill(pid, 'SIGKILL');
    rmSync(dir, { recursive: true, force: true });
  });

  /** The npm process, and when its output has ended (every process writing to it is gone). */
  const npm = (script: string[], settings: Record<string, string>) => {
    const proc = spawnProgram(
      'npm',
      ['run', '--silent', ...script],
      cleanEnv({ DATABASE_URL: `sqlite:${join(dir, 'service.db')}`, ...settings }),
    );
    const closed = new Promise<void>((resolve) => proc.child.once('close', () => resolve()));
    return { proc, closed };
  };

  it('npm start: SIGTERM to npm stops the service and frees its port', async () => {
    const port = await freePort();
    const { proc, closed } = npm(['start'], {
      PORT: String(port),
      HOST: '127.0.0.1',
      EMBEDDED_WORKER: 'false',
    });
    try {
      const pid = pidOf(await proc.waitForLine(/HTTP server listening/, 120_000));
      started.push(pid);
      expect(pid).not.toBe(proc.child.pid);
      expect(await canListenOn(port)).toBe(false);

      proc.child.kill('SIGTERM');
      await proc.exited;
      expect(alive(pid)).toBe(false);
      expect(await canListenOn(port)).toBe(true);
      await closed;
      expect(proc.stdout()).toMatch(/"msg":"service stopped"/);
    } finally {
      proc.kill();
    }
  }, 180_000);

  it('npm run worker: SIGTERM to npm stops the worker, which had its malloc settings', async () => {
    const { proc, closed } = npm(['worker'], { LOG_LEVEL: 'info' });
    try {
      const pid = pidOf(await proc.waitForLine(/"msg":"worker started"/, 120_000));
      started.push(pid);
      proc.child.kill('SIGTERM');
      await proc.exited;
      expect(alive(pid)).toBe(false);
      await closed;
      expect(proc.stdout()).toMatch(/"msg":"worker shutting down"/);
      expect(proc.stdout()).not.toMatch(/started without the malloc settings/);
    } finally {
      proc.kill();
    }
  }, 180_000);
});
