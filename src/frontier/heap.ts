/** A binary min-heap. The scheduler keeps hosts in two of these (ready by depth, sleeping by time). */
export class MinHeap<T> {
  private readonly items: T[] = [];

  constructor(private readonly less: (a: T, b: T) => boolean) {}

  get size(): number {
    return this.items.length;
  }

  peek(): T | undefined {
    return this.items[0];
  }

  push(item: T): void {
    const items = this.items;
    items.push(item);
    let i = items.length - 1;
    while (i > 0) {
      const parent = (i - 1) >> 1;
      const p = items[parent] as T;
      if (!this.less(item, p)) break;
      items[i] = p;
      i = parent;
    }
    items[i] = item;
  }

  pop(): T | undefined {
    const items = this.items;
    const top = items[0];
    const last = items.pop();
    if (items.length === 0 || last === undefined) return top;
    let i = 0;
    const n = items.length;
    for (;;) {
      const left = 2 * i + 1;
      if (left >= n) break;
      const right = left + 1;
      let child = left;
      if (right < n && this.less(items[right] as T, items[left] as T)) child = right;
      const c = items[child] as T;
      if (!this.less(c, last)) break;
      items[i] = c;
      i = child;
    }
    items[i] = last;
    return top;
  }
}
