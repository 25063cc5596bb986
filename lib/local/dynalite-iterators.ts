import { createRequire } from 'node:module';

/**
 * Makes dynalite close the LevelDB iterator of every Query, Scan and ListTables.
 *
 * dynalite 4 turns each read into a stream over `db.values(range)` (or `db.keys`), and when the
 * stream ends or is cut short it calls `iterator.return()` to close the iterator. abstract-level 3
 * iterators have no `return()` (they close with `close()`), so dynalite's check
 * `if (iterator.return)` is false and no iterator is ever closed. Each one stays registered on the
 * database until the database closes, holding its native LevelDB iterator, the snapshot that
 * iterator reads from and the blocks it pinned (with memory-level, the version of the tree it
 * started on). The soak benchmark (test/bench/soak.ts) grew by about 40 MB per 1,000 turns.
 *
 * The fix gives abstract-level's iterators the `return()` of the async-iterator protocol, closing
 * the iterator. Closing is safe at any point: abstract-level defers it until a pending `next()`
 * has settled. Applied to the copies of abstract-level that dynalite's two back ends load (on
 * disk: level → classic-level; in memory: memory-level), once per process.
 */

interface IteratorPrototype {
  close(): Promise<void>;
  return?: (value?: unknown) => Promise<IteratorResult<never, unknown>>;
}

/** The part of abstract-level's exports used here and by the test of this fix. */
interface AbstractLevelModule {
  AbstractLevel: { prototype: { attachResource(resource: object): void; detachResource(resource: object): void } };
  AbstractValueIterator: { prototype: object };
}

/** Every copy of abstract-level dynalite's back ends use (one when npm has deduplicated them). */
export function dynaliteAbstractLevels(): AbstractLevelModule[] {
  const fromHere = createRequire(import.meta.url);
  const fromDynalite = createRequire(fromHere.resolve('dynalite'));
  const fromLevel = createRequire(fromDynalite.resolve('level'));
  const backEnds = [fromLevel.resolve('classic-level'), fromDynalite.resolve('memory-level')];
  const paths = new Set(backEnds.map((backEnd) => createRequire(backEnd).resolve('abstract-level')));
  return [...paths].map((path) => fromHere(path) as AbstractLevelModule);
}

let applied = false;

export function closeDynaliteIterators(): void {
  if (applied) return;
  for (const abstractLevel of dynaliteAbstractLevels()) {
    // Keys, values and entries iterators all share this parent: the class that owns close().
    const iterators = Object.getPrototypeOf(abstractLevel.AbstractValueIterator.prototype) as IteratorPrototype;
    if (typeof iterators.close !== 'function') {
      throw new Error('abstract-level changed: its iterators have no close(); review lib/local/dynalite-iterators.ts');
    }
    // A version of abstract-level that has its own return() needs no help.
    if (iterators.return) continue;
    Object.defineProperty(iterators, 'return', {
      configurable: true,
      writable: true,
      value: async function (this: IteratorPrototype, value?: unknown) {
        await this.close();
        return { done: true, value };
      },
    });
  }
  applied = true;
}
