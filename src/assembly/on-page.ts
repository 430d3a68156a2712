import type { ModulePage, ModuleStats } from '../modules/api.js';
import type { LogLevel } from '../options/options.js';

/** The name the library's onPage goes by in the summary's module list (no module can take it). */
export const ON_PAGE_NAME = '(onPage)';

/**
 * The library's onPage, held to the rules of a module's onPage hook: a throw is counted
 * and logged, a promise still pending after the module timeout is counted and no longer
 * waited for, and the crawl goes on either way. (It runs on the crawl's own thread, so
 * code that never yields cannot be cut off: keep it light, or write a module.)
 */
export class GuardedOnPage {
  private calls = 0;
  private errors = 0;
  private timeouts = 0;
  private ms = 0;

  constructor(
    private readonly onPage: (page: ModulePage) => unknown,
    private readonly timeoutMs: number,
    private readonly log: (line: string, level: LogLevel) => void,
  ) {}

  /** Never rejects. */
  readonly call = async (page: ModulePage): Promise<void> => {
    this.calls++;
    const started = performance.now();
    let timer: NodeJS.Timeout | undefined;
    try {
      const timedOut = new Promise<'timeout'>((resolve) => {
        timer = setTimeout(() => resolve('timeout'), this.timeoutMs);
      });
      const result = await Promise.race([Promise.resolve().then(() => this.onPage(page)), timedOut]);
      if (result === 'timeout') {
        this.timeouts++;
        this.log(
          `onPage did not return within ${this.timeoutMs} ms on ${page.url}; going on without it`,
          'error',
        );
      }
    } catch (err) {
      this.errors++;
      this.log(`onPage threw on ${page.url}: ${err instanceof Error ? err.message : String(err)}`, 'error');
    } finally {
      clearTimeout(timer);
      this.ms += performance.now() - started;
    }
  };

  stats(): ModuleStats {
    return {
      name: ON_PAGE_NAME,
      calls: this.calls,
      errors: this.errors,
      timeouts: this.timeouts,
      skipped: 0,
      meanMs: this.calls > 0 ? this.ms / this.calls : 0,
    };
  }
}
