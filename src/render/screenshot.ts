import type { Page } from 'playwright-core';

/**
 * --screenshot: the rendered page's viewport as a PNG, as Browsertrix keeps one beside
 * the page (a WARC resource record, `urn:screenshot:URL`). A page that cannot be pictured
 * within `ms` (a hung compositor) has none; its DOM and links are kept all the same.
 */
export async function screenshotOf(page: Page, ms: number): Promise<Uint8Array | null> {
  try {
    return await page.screenshot({ type: 'png', timeout: ms, animations: 'disabled' });
  } catch {
    return null;
  }
}

/** The WARC-Target-URI of a page's screenshot: Browsertrix's form, so replay tools find it. */
export function screenshotUri(pageUrl: string): string {
  return `urn:screenshot:${pageUrl}`;
}
