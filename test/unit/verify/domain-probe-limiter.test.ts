import { DomainProbeLimiter } from '../../../src/verify/domain-probe-limiter';

/** A task that records when it starts and finishes when the test says so. */
function controllable() {
  const started: string[] = [];
  const finishers = new Map<string, () => void>();
  const task = (name: string) => () =>
    new Promise<string>((resolve) => {
      started.push(name);
      finishers.set(name, () => resolve(name));
    });
  const finish = (name: string) => finishers.get(name)?.();
  return { started, task, finish };
}

/** Lets pending promise callbacks run (fake timers do not touch the microtask queue). */
const settle = () =>
  new Promise<void>((resolve) => jest.requireActual<typeof import('timers')>('timers').setImmediate(resolve));

describe('DomainProbeLimiter', () => {
  beforeEach(() => jest.useFakeTimers());
  afterEach(() => jest.useRealTimers());

  const neverAborted = new AbortController().signal;

  it('runs at most `concurrency` probes of one domain at a time, in arrival order', async () => {
    const limiter = new DomainProbeLimiter({ concurrency: 2, minIntervalMs: 0 });
    const { started, task, finish } = controllable();
    const runs = ['a', 'b', 'c', 'd'].map((name) => limiter.run('example.com', neverAborted, task(name)));
    await settle();
    expect(started).toEqual(['a', 'b']);
    finish('b');
    await settle();
    expect(started).toEqual(['a', 'b', 'c']);
    finish('a');
    finish('c');
    await settle();
    finish('d');
    await expect(Promise.all(runs)).resolves.toEqual(['a', 'b', 'c', 'd']);
  });

  it('keeps the minimum spacing between starts of one domain', async () => {
    const limiter = new DomainProbeLimiter({ concurrency: 10, minIntervalMs: 1000 });
    const { started, task } = controllable();
    void limiter.run('example.com', neverAborted, task('a'));
    void limiter.run('example.com', neverAborted, task('b'));
    await settle();
    expect(started).toEqual(['a']);
    jest.advanceTimersByTime(999);
    await settle();
    expect(started).toEqual(['a']);
    jest.advanceTimersByTime(1);
    await settle();
    expect(started).toEqual(['a', 'b']);
  });

  it('does not make other domains wait', async () => {
    const limiter = new DomainProbeLimiter({ concurrency: 1, minIntervalMs: 1000 });
    const { started, task } = controllable();
    void limiter.run('one.example', neverAborted, task('a'));
    void limiter.run('one.example', neverAborted, task('b'));
    void limiter.run('two.example', neverAborted, task('c'));
    await settle();
    expect(started).toEqual(['a', 'c']);
  });

  it('gives up waiting when the signal aborts, without running the task', async () => {
    const limiter = new DomainProbeLimiter({ concurrency: 1, minIntervalMs: 0 });
    const { started, task, finish } = controllable();
    const first = limiter.run('example.com', neverAborted, task('a'));
    const controller = new AbortController();
    const second = limiter.run('example.com', controller.signal, task('b'));
    controller.abort(new Error('time is up'));
    await expect(second).rejects.toThrow('time is up');
    finish('a');
    await expect(first).resolves.toBe('a');
    expect(started).toEqual(['a']);
  });

  it('releases the slot when a task fails', async () => {
    const limiter = new DomainProbeLimiter({ concurrency: 1, minIntervalMs: 0 });
    await expect(
      limiter.run('example.com', neverAborted, () => Promise.reject(new Error('boom'))),
    ).rejects.toThrow('boom');
    await expect(limiter.run('example.com', neverAborted, () => Promise.resolve('next'))).resolves.toBe(
      'next',
    );
  });

  it('forgets a domain once it is idle and its spacing has passed', async () => {
    const limiter = new DomainProbeLimiter({ concurrency: 1, minIntervalMs: 1000 });
    await limiter.run('example.com', neverAborted, () => Promise.resolve());
    expect(limiter.trackedDomains).toBe(1);
    jest.advanceTimersByTime(1000);
    expect(limiter.trackedDomains).toBe(0);
  });
});
