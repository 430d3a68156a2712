import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { CrawlOptionError } from '../errors.js';

/** The names a Chromium goes by on PATH, in the order they are looked for. */
export const BROWSER_NAMES: readonly string[] = ['chromium', 'chromium-browser', 'google-chrome'];

/** Whether `path` is a file this process may run. */
function runnable(path: string): boolean {
  try {
    if (!statSync(path).isFile()) return false;
    accessSync(path, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/**
 * The Chromium a rendering crawl drives: `--browser PATH`, else COBWEB_BROWSER, else the
 * first of BROWSER_NAMES on PATH. None (or a named one that cannot run) is the caller's
 * to fix, so it is refused before anything is touched. A browser is never downloaded:
 * what a crawl runs is what the machine's owner installed.
 */
export function findBrowser(given: string | undefined, env: NodeJS.ProcessEnv = process.env): string {
  const named = given ?? (env.COBWEB_BROWSER === '' ? undefined : env.COBWEB_BROWSER);
  if (named !== undefined) {
    if (runnable(named)) return named;
    const from = given === undefined ? 'COBWEB_BROWSER' : '--browser';
    throw new CrawlOptionError(
      `${from} names ${named}, which is not a program this user can run: give the path of a Chromium (for example /usr/bin/chromium).`,
    );
  }
  for (const folder of (env.PATH ?? '').split(delimiter)) {
    if (folder === '') continue;
    for (const name of BROWSER_NAMES) {
      const path = join(folder, name);
      if (runnable(path)) return path;
    }
  }
  throw new CrawlOptionError(
    `--render needs a Chromium, and none was found: give --browser PATH or COBWEB_BROWSER, or install one as ${BROWSER_NAMES.join(', ')} on PATH (apt-get install chromium). cobweb never downloads a browser.`,
  );
}

/**
 * The Chromium a crawl with these options renders with: undefined when it does not
 * render. A screenshot is a picture of a rendered page: asked for without rendering, it
 * is refused here, before anything is touched, rather than silently never taken.
 */
export function browserFor(o: {
  render?: string | undefined;
  browser?: string | undefined;
  screenshot?: boolean | undefined;
}): string | undefined {
  const renders = o.render !== undefined && o.render !== 'never';
  if (o.screenshot === true && !renders)
    throw new CrawlOptionError(
      '--screenshot takes a picture of each rendered page, and this crawl renders none: add --render always (or auto), or leave --screenshot out.',
    );
  return renders ? findBrowser(o.browser) : undefined;
}
