/**
 * An event feed: the crawl (or the server) emits, the console listens. With nobody
 * listening an emit is one empty loop, so the crawl keeps one whether or not --http is on.
 */
export class Feed<T> {
  private listeners: ((event: T) => void)[] = [];

  /** Starts listening; returns what stops it. */
  on(listener: (event: T) => void): () => void {
    this.listeners = [...this.listeners, listener];
    return () => {
      this.listeners = this.listeners.filter((l) => l !== listener);
    };
  }

  emit(event: T): void {
    for (const l of this.listeners) l(event);
  }
}
