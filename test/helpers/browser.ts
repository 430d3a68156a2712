import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Browser, type BrowserContext, chromium } from 'playwright-core';

/** Debian's Chromium (apt-get install chromium; .ci/run installs it). No browser is ever downloaded. */
export const CHROMIUM = '/usr/bin/chromium';

/** Whether the browser tests can run here; when not, the one loud line says so. */
export function haveChromium(): boolean {
  if (existsSync(CHROMIUM)) return true;
  console.warn(`SKIPPED: the browser tests need Chromium at ${CHROMIUM} (apt-get install chromium)`);
  return false;
}

/** A headless Chromium with a user data folder of its own, removed by close(). */
export interface TestBrowser {
  browser: Browser | BrowserContext;
  context: BrowserContext;
  close(): Promise<void>;
}

/** `timezoneId`: the pages' time zone (an IANA name), for what they show as times of day. */
export async function launchChromium(options: { timezoneId?: string } = {}): Promise<TestBrowser> {
  const profile = mkdtempSync(join(tmpdir(), 'cobweb-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
    viewport: { width: 1280, height: 1000 },
    ...options,
  });
  return {
    browser: context,
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}
