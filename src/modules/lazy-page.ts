import type { Document } from 'domhandler';
import { parseDocument } from 'htmlparser2';
import { decodeBody } from '../parse/charset.js';
import type { ModulePage } from './api.js';
import type { WirePage } from './protocol.js';

/**
 * The ModulePage a module sees, made from a WirePage. Its text, its links and its DOM
 * are worked out on first use and kept, so every module reading them shares one
 * decode, one split and one parse, and a page no module asks about costs none.
 * `html` and `links` are enumerable getters: spreading or serializing the page still
 * gives them, as when they were plain fields.
 */
export function lazyPage(wire: WirePage, packed: ArrayBuffer | null): ModulePage {
  let html: string | null | undefined;
  let links: string[] | undefined;
  let dom: Document | null | undefined;
  const textOf = (): string | null => {
    if (html === undefined) {
      const body = wire.body;
      html =
        body === null || packed === null
          ? null
          : decodeBody(new Uint8Array(packed, body.offset, body.length), wire.contentType).text;
    }
    return html;
  };
  // An object literal's getters are enumerable own properties, made from the literal's
  // shape: defining them on each page (Object.defineProperties) was a slow path per page.
  const page = {
    url: wire.url,
    status: wire.status,
    headers: wire.headers,
    contentType: wire.contentType,
    facts: wire.facts,
    depth: wire.depth,
    referrer: wire.referrer,
    get html(): string | null {
      return textOf();
    },
    get links(): string[] {
      links ??= wire.links === '' ? [] : wire.links.split('\n');
      return links;
    },
  } as ModulePage;
  // Not enumerable: a spread or serialized page carries no function.
  Object.defineProperty(page, 'dom', {
    enumerable: false,
    value: (): Document | null => {
      if (dom === undefined) {
        const text = textOf();
        dom = text === null ? null : parseDocument(text, { decodeEntities: true });
      }
      return dom;
    },
  });
  return page;
}
