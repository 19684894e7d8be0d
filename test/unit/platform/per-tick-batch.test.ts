import { PerTickBatch } from '../../../src/platform/per-tick-batch';

/** Resolves after the event loop's check phase in which a PerTickBatch sends. */
const nextCheckPhase = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

describe('PerTickBatch', () => {
  it('sends the items added in one turn together, in the order added, and nothing before that turn ends', async () => {
    const sent: number[][] = [];
    const batch = new PerTickBatch<number>((items) => void sent.push(items));
    batch.add(1);
    batch.add(2);
    batch.add(3);
    expect(sent).toEqual([]);
    await nextCheckPhase();
    expect(sent).toEqual([[1, 2, 3]]);
    batch.add(4);
    await nextCheckPhase();
    expect(sent).toEqual([[1, 2, 3], [4]]);
  });

  it('splits a turn into sends of at most maxItems', async () => {
    const sent: number[][] = [];
    const batch = new PerTickBatch<number>((items) => void sent.push(items), { maxItems: 2 });
    for (let i = 1; i <= 5; i++) batch.add(i);
    await nextCheckPhase();
    expect(sent).toEqual([[1, 2], [3, 4], [5]]);
  });

  it('holds what arrives while maxInFlight sends are unsettled and sends it together when one settles', async () => {
    const sent: number[][] = [];
    const settle: (() => void)[] = [];
    const batch = new PerTickBatch<number>(
      (items) => {
        sent.push(items);
        return new Promise<void>((resolve) => settle.push(resolve));
      },
      { maxInFlight: () => 1 },
    );
    batch.add(1);
    await nextCheckPhase();
    batch.add(2);
    await nextCheckPhase();
    batch.add(3);
    await nextCheckPhase();
    expect(sent).toEqual([[1]]);
    expect(batch.size).toBe(2);
    settle[0]();
    await new Promise((resolve) => setImmediate(resolve));
    await nextCheckPhase();
    expect(sent).toEqual([[1], [2, 3]]);
  });

  it('counts a rejected send as settled and goes on', async () => {
    const sent: number[][] = [];
    const batch = new PerTickBatch<number>(
      (items) => {
        sent.push(items);
        return Promise.reject(new Error('database gone'));
      },
      { maxInFlight: () => 1 },
    );
    batch.add(1);
    await nextCheckPhase();
    batch.add(2);
    await nextCheckPhase();
    await nextCheckPhase();
    expect(sent).toEqual([[1], [2]]);
  });

  it('logs a send that throws instead of ending the process, and sends the next turn', async () => {
    const sent: number[][] = [];
    const batch = new PerTickBatch<number>((items) => {
      if (items[0] === 1) throw new Error('bug');
      sent.push(items);
    });
    batch.add(1);
    await nextCheckPhase();
    batch.add(2);
    await nextCheckPhase();
    expect(sent).toEqual([[2]]);
  });

  it('flush sends what is waiting at once, and the end of the turn then has nothing to send', async () => {
    const sent: number[][] = [];
    const batch = new PerTickBatch<number>((items) => void sent.push(items));
    batch.add(1);
    batch.add(2);
    batch.flush();
    expect(sent).toEqual([[1, 2]]);
    await nextCheckPhase();
    expect(sent).toEqual([[1, 2]]);
  });
});
