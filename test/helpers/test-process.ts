import { ChildProcess, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';

export const REPO_ROOT = join(__dirname, '..', '..');

/** A compiled entry point under dist/ (built by `npm run build`, which `npm test` runs first). */
export function distEntry(relative: string): string {
  const path = join(REPO_ROOT, 'dist', relative);
  if (!existsSync(path)) throw new Error(`${path} is missing: run \`npm run build\` first`);
  return path;
}

/** A port nobody listens on right now: bind to port 0, read it, let it go. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

/** Only what the process needs: no settings leak in from the test runner's own environment. */
export function cleanEnv(settings: Record<string, string>): NodeJS.ProcessEnv {
  return { PATH: process.env.PATH, HOME: process.env.HOME, ...settings };
}

export interface SpawnedProcess {
  child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the first stdout line matching, or rejects when the process exits first. */
  waitForLine(pattern: RegExp, timeoutMs?: number): Promise<string>;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
  kill(): void;
}

export function spawnNode(script: string, args: string[], env: NodeJS.ProcessEnv): SpawnedProcess {
  return spawnProgram(process.execPath, [script, ...args], env);
}

/**
 * Any program (`npm` for the scripts of package.json), run in the repository like spawnNode;
 * `as` runs it as another user (a test running as root needs one for file permissions to apply).
 */
export function spawnProgram(
  command: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  as: { uid?: number; gid?: number } = {},
): SpawnedProcess {
  const child = spawn(command, args, {
    cwd: REPO_ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
    ...as,
  });
  let out = '';
  let err = '';
  const waiters: (() => void)[] = [];
  child.stdout!.on('data', (chunk: Buffer) => {
    out += chunk.toString();
    for (const wake of [...waiters]) wake();
  });
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      for (const wake of [...waiters]) wake();
      resolve({ code, signal });
    }),
  );
  return {
    child,
    stdout: () => out,
    stderr: () => err,
    exited,
    waitForLine(pattern, timeoutMs = 30_000) {
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => finish(new Error(`no line matching ${pattern} within ${timeoutMs} ms:\n${out}\n${err}`)),
          timeoutMs,
        );
        const check = () => {
          const line = out.split('\n').find((l) => pattern.test(l));
          if (line !== undefined) return finish(null, line);
          if (child.exitCode !== null || child.signalCode !== null) {
            finish(
              new Error(
                `process exited (${child.exitCode ?? child.signalCode}) before ${pattern}:\n${out}\n${err}`,
              ),
            );
          }
        };
        const finish = (error: Error | null, line?: string) => {
          clearTimeout(timer);
          waiters.splice(waiters.indexOf(check), 1);
          if (error) reject(error);
          else resolve(line!);
        };
        waiters.push(check);
        check();
      });
    },
    kill() {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}
