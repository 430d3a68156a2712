import type { BrowserContext, Page } from 'playwright-core';

/**
 * What a rendered page may not do, set on each host context when it is made: it asks for
 * nothing the crawl would have to answer, reaches no host by a way the crawl does not
 * see, and keeps no connection open.
 */
export async function guardContext(context: BrowserContext): Promise<void> {
  // Granting none is answering every permission prompt (geolocation, notifications, camera,
  // ...) with no: headless Chromium would otherwise leave some pending forever.
  await context.grantPermissions([]);
  // A page's own requests meet its route first (renderer.ts); what reaches this one comes
  // from a page the crawl does not drive, a pop-up, and goes nowhere. A request a kept tab's
  // page route was handling as that route was removed falls through to here already
  // answered: that failure is nobody's, and must not reach the process.
  await context.route('**/*', (route) => route.abort('blockedbyclient').catch(() => {}));
  // A WebSocket is never connected to its server: the page sees it closed at once.
  await context.routeWebSocket(/.*/, (ws) => void ws.close().catch(() => {}));
}

/** A dialog would stop the page's scripts until answered; a pop-up is a page the crawl did not ask for. */
export function guardPage(page: Page): void {
  page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
  page.on('popup', (popup) => void popup.close().catch(() => {}));
}

/**
 * How many elements the page's DOM has: counted in the page, at once, where serializing a
 * huge DOM takes tens of seconds (50 MB of it, half a minute here) before the DevTools pipe
 * carries it over.
 */
export function domElements(page: Page): Promise<number> {
  // A string, not a function: the project's types have no DOM.
  return page.evaluate<number>("document.getElementsByTagName('*').length");
}
