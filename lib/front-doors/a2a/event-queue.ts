/**
 * Callbacks in, an async iterator out: the loop reports its events through `onEvent` while the
 * transport reads a stream of A2A events. Unbounded, as a turn's events are few (bounded by its
 * rounds and calls).
 */
export class EventQueue<Item> implements AsyncIterable<Item> {
  private readonly items: Item[] = [];
  private closed = false;
  private wake: (() => void) | undefined;

  push(item: Item): void {
    if (this.closed) return;
    this.items.push(item);
    this.wake?.();
  }

  close(): void {
    this.closed = true;
    this.wake?.();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<Item> {
    while (true) {
      const item = this.items.shift();
      if (item !== undefined) {
        yield item;
        continue;
      }
      if (this.closed) return;
      await new Promise<void>((resolve) => (this.wake = resolve));
      this.wake = undefined;
    }
  }
}
