import { describe, expect, it } from 'vitest';
import { inParallel } from '../../lib/evals/run-suite.ts';

describe('runs in parallel within a limit', () => {
  it('never runs more than the limit at once, starts the next as one ends, and keeps the order of the results', async () => {
    const running = new Set<number>();
    let most = 0;
    const release = new Map<number, () => void>();
    const started: number[] = [];
    const done = inParallel([0, 1, 2, 3, 4], 2, (item) => {
      running.add(item);
      started.push(item);
      most = Math.max(most, running.size);
      return new Promise<string>((resolve) => release.set(item, () => {
        running.delete(item);
        resolve(`result ${item}`);
      }));
    });
    // Each release lets exactly one more start: finish them out of order.
    for (const item of [1, 0, 3, 2, 4]) {
      await expect.poll(() => release.has(item)).toBe(true);
      expect(running.size).toBeLessThanOrEqual(2);
      release.get(item)!();
    }
    await expect(done).resolves.toEqual(['result 0', 'result 1', 'result 2', 'result 3', 'result 4']);
    expect(most).toBe(2);
    expect(started).toEqual([0, 1, 2, 3, 4]);
  });
});
