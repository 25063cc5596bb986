/**
 * Stands in for `mnemonist/lru-cache` in the Lambda bundles (infra/bundling.ts,
 * functionSubstitutes). Its one user there is the DynamoDB client's endpoint cache
 * (@aws-sdk/endpoint-cache: get, set, has, peek, clear), which a Map keeps in recency order just as
 * well; mnemonist's typed-array cache and its helpers are 7 KB of every bundle.
 */
export default class LRUCache<K, V> {
  private readonly entries = new Map<K, V>();
  private readonly capacity: number;

  constructor(capacity: number) {
    this.capacity = capacity;
  }

  get size(): number {
    return this.entries.size;
  }

  /** The value, now the most recently used. */
  get(key: K): V | undefined {
    if (!this.entries.has(key)) return undefined;
    const value = this.entries.get(key)!;
    this.entries.delete(key);
    this.entries.set(key, value);
    return value;
  }

  /** The value, its recency unchanged. */
  peek(key: K): V | undefined {
    return this.entries.get(key);
  }

  has(key: K): boolean {
    return this.entries.has(key);
  }

  /** Stores the value as the most recently used; past capacity the least recently used goes. */
  set(key: K, value: V): this {
    this.entries.delete(key);
    this.entries.set(key, value);
    if (this.entries.size > this.capacity) this.entries.delete(this.entries.keys().next().value!);
    return this;
  }

  clear(): void {
    this.entries.clear();
  }
}
