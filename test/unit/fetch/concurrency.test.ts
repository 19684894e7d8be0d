import { forEachConcurrently } from '../../../src/fetch/concurrency';

describe('forEachConcurrently', () => {
  it('runs every item with no more than the limit in flight', async () => {
    let inFlight = 0;
    let peak = 0;
    const done: number[] = [];
    await forEachConcurrently(
      Array.from({ length: 20 }, (_, i) => i),
      3,
      async (item) => {
        inFlight++;
        peak = Math.max(peak, inFlight);
        await new Promise((resolve) => setImmediate(resolve));
        done.push(item);
        inFlight--;
      },
    );

    expect(peak).toBe(3);
    expect(done.sort((a, b) => a - b)).toEqual(Array.from({ length: 20 }, (_, i) => i));
  });

  it('starts nothing new once the signal aborts', async () => {
    const controller = new AbortController();
    const started: number[] = [];
    await forEachConcurrently(
      [1, 2, 3, 4, 5, 6],
      2,
      async (item) => {
        started.push(item);
        if (item === 2) controller.abort();
        await new Promise((resolve) => setImmediate(resolve));
      },
      controller.signal,
    );

    expect(started).toEqual([1, 2]);
  });

  it('handles an empty list', async () => {
    const task = jest.fn(async () => undefined);
    await forEachConcurrently([], 5, task);
    expect(task).not.toHaveBeenCalled();
  });
});
