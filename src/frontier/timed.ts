/** One call on a store, timed: which operation, and how long its promise took. */
export interface StoreCall {
  /** The method's name; a lease() that may wait (a long poll) is `lease_wait`. */
  operation: string;
  seconds: number;
}

/**
 * The same store, its async calls timed: each call's duration goes to `observe` once its
 * promise settles (failed calls too). Nothing else changes: properties and synchronous
 * methods pass through, and methods run on the store itself, not on the wrapper. The
 * crawl wraps its store in this only when someone watches (the console).
 */
export function timedStore<T extends object>(store: T, observe: (call: StoreCall) => void): T {
  const wrapped = new Map<PropertyKey, unknown>();
  return new Proxy(store, {
    get(target, key) {
      const value: unknown = Reflect.get(target, key, target);
      if (typeof value !== 'function' || typeof key !== 'string' || key === 'constructor') return value;
      let w = wrapped.get(key);
      if (w === undefined) {
        const method = value as (...args: unknown[]) => unknown;
        w = (...args: unknown[]) => {
          const started = performance.now();
          const result = method.apply(target, args);
          if (!(result instanceof Promise)) return result;
          const operation = key === 'lease' && waits(args[2]) ? 'lease_wait' : key;
          const done = () => observe({ operation, seconds: (performance.now() - started) / 1000 });
          result.then(done, done);
          return result;
        };
        wrapped.set(key, w);
      }
      return w;
    },
  });
}

function waits(options: unknown): boolean {
  const waitMs = (options as { waitMs?: unknown } | undefined)?.waitMs;
  return typeof waitMs === 'number' && waitMs > 0;
}
