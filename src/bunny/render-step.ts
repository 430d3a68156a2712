import type { FetchSuccess } from '../fetch/types.js';
import { type PackedExchange, packResource } from '../output/packed-exchange.js';
import { looksScriptBuilt } from '../render/auto-rule.js';
import type { CapturedResponse } from '../render/capture.js';
import type { SubrequestCounts } from '../render/page-requests.js';
import type { Renderer } from '../render/renderer.js';
import { screenshotUri } from '../render/screenshot.js';

/** --render: which pages, and who renders them. */
export interface RenderPart {
  mode: 'auto' | 'always';
  renderer: Pick<Renderer, 'render'>;
}

/** What rendering made of a page, for its pages.jsonl line. */
export type RenderNote = ({ rendered: true } | { rendered: false; error: string; message: string }) & {
  /** The page's own requests: sent, and not sent (page-requests.ts). */
  subrequests?: SubrequestCounts;
};

/** What a page is parsed from: its rendered DOM, or (not rendered) its fetched bytes. */
export interface RenderedPage {
  /** The bytes to parse, in a PackedExchange of their own; the fetched one stays as it was, for the WARC. */
  packed: PackedExchange;
  contentType: string | null;
  note: RenderNote | null;
  /** --requisites: what the browser loaded for the page (capture.ts). */
  captured: readonly CapturedResponse[];
  /** --screenshot: the page's picture, as a WARC resource record of its own. */
  screenshot: PackedExchange | null;
}

const UTF8_HTML = 'text/html; charset=utf-8';

/**
 * Whether a 2xx HTML page is rendered: when --render says so (`auto`: when its fetched
 * HTML looks built by script, so the plain fetch is the first step of a rendered page,
 * not a waste).
 */
export function wantsRender(part: RenderPart | null, outcome: FetchSuccess): part is RenderPart {
  if (part === null) return false;
  // The signs are ASCII markup: latin1 reads them from any charset's bytes, cheaply.
  return part.mode === 'always' || looksScriptBuilt(Buffer.from(outcome.body).toString('latin1'));
}

/**
 * fetch -> render -> parse, for a page wantsRender chose. The page's links, title and
 * facts then come from the rendered DOM; a page whose rendering fails is parsed as
 * fetched, its line says why.
 */
export async function renderPage(
  part: RenderPart,
  outcome: FetchSuccess,
  packed: PackedExchange,
): Promise<RenderedPage> {
  const asFetched: RenderedPage = {
    packed,
    contentType: outcome.contentType,
    note: null,
    captured: [],
    screenshot: null,
  };
  const result = await part.renderer.render({
    url: outcome.url,
    status: outcome.status,
    headers: outcome.headers,
    body: outcome.body,
  });
  const counts = result.subrequests === undefined ? {} : { subrequests: result.subrequests };
  if (!result.ok)
    return {
      ...asFetched,
      note: { rendered: false, error: result.error, message: result.message, ...counts },
    };
  return {
    packed: packedText(packed, result.html),
    contentType: UTF8_HTML,
    note: { rendered: true, ...counts },
    captured: result.captured ?? [],
    screenshot:
      result.screenshot === undefined
        ? null
        : packResource(screenshotUri(outcome.url), new Date(), 'image/png', result.screenshot),
  };
}

/** The rendered DOM as a packed exchange of its own (only its body is read), named like the fetch's. */
function packedText(fetched: PackedExchange, html: string): PackedExchange {
  const bytes = new TextEncoder().encode(html);
  const body = { offset: 0, length: bytes.length };
  const none = { offset: 0, length: 0 };
  return {
    url: fetched.url,
    date: fetched.date,
    remoteAddress: fetched.remoteAddress,
    buffer: bytes.buffer,
    requestHead: none,
    responseHead: none,
    rawBody: body,
    body,
  };
}
