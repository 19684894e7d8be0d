import { ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';

/** A port nobody listens on right now: bind to port 0, read it, let it go. */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise((resolve) => server.close(resolve));
  return port;
}

export interface BenchProcess {
  child: ChildProcess;
  output(): string;
  stop(): Promise<void>;
}

/** A Node script as its own process (output kept for error messages), stopped with SIGTERM. */
export function spawnScript(
  script: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  nodeOptions: string[] = [],
): BenchProcess {
  const child = spawn(process.execPath, [...nodeOptions, script, ...args], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  return {
    child,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGTERM');
      await exited;
    },
  };
}

/** Polls `url` until it answers 200 (the process is up), or fails when the process exits or after 30 s. */
export async function waitUntilUp(url: string, process: BenchProcess): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      if ((await fetch(url)).ok) return;
    } catch {
      // not listening yet
    }
    if (attempt > 300 || process.child.exitCode !== null)
      throw new Error(`${url} did not come up:\n${process.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}
