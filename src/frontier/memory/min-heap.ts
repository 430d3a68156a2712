/**
 * A binary min-heap ordered by `before`. The in-memory stores index what they must find
 * the least of on every lease call (the next ready host, the next lease to run out) with
 * it, instead of scanning every host or lease; entries that went stale are left in and
 * skipped when they come to the top (the caller's `stale` test), as BUbiNG's workbench does.
 */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly before: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  push(item: T): void {
    const a = this.items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      if (!this.before(item, a[parent] as T)) break;
      a[i] = a[parent] as T;
      i = parent;
    }
    a[i] = item;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  pop(): T | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const child = r < a.length && this.before(a[r] as T, a[l] as T) ? r : l;
      if (!this.before(a[child] as T, last)) break;
      a[i] = a[child] as T;
      i = child;
    }
    a[i] = last;
    return top;
  }

  /** The least entry that `stale` does not discard, stale ones above it dropped on the way. */
  top(stale: (item: T) => boolean): T | undefined {
    for (let t = this.peek(); t !== undefined; t = this.peek()) {
      if (!stale(t)) return t;
      this.pop();
    }
    return undefined;
  }
}
