// What a page needs to be shown as it was (wget's -p, "page requisites"): which tags and
// attributes name a stylesheet, a script, an image, an icon, a media file or its poster.

import { hasToken, trimUrl } from './link-rels.js';
import type { Attributes } from './tag-reader.js';

/** The tags that may name a requisite (besides <link> and <style>, which html.ts reads anyway or on demand). */
export const REQUISITE_TAGS: readonly string[] = [
  'img',
  'script',
  'source',
  'video',
  'audio',
  'track',
  'embed',
  'object',
  'input',
  'body',
  'style',
];

/** `<link rel>` tokens whose href the page loads to be shown. */
const REQUISITE_RELS = [
  'stylesheet',
  'icon',
  'apple-touch-icon',
  'apple-touch-icon-precomposed',
  'mask-icon',
  'manifest',
  'preload',
  'modulepreload',
];

/**
 * The raw URLs (trimmed, not resolved) one open tag names as requisites, in the order a
 * browser meets them: `src` before `srcset` before `poster`.
 */
export function requisitesOf(name: string, attribs: Attributes): string[] {
  const out: string[] = [];
  const add = (raw: string | undefined): void => {
    if (raw === undefined) return;
    const url = trimUrl(raw);
    if (url.length > 0 && !/^data:/i.test(url)) out.push(url);
  };
  switch (name) {
    case 'link': {
      const rel = attribs.rel;
      if (rel !== undefined && REQUISITE_RELS.some((token) => hasToken(rel, token))) {
        add(attribs.href);
        for (const url of srcsetUrls(attribs.imagesrcset)) add(url);
      }
      break;
    }
    case 'img':
    case 'source':
      add(attribs.src);
      for (const url of srcsetUrls(attribs.srcset)) add(url);
      break;
    case 'video':
      add(attribs.src);
      add(attribs.poster);
      break;
    case 'script':
    case 'audio':
    case 'track':
    case 'embed':
      add(attribs.src);
      break;
    case 'object':
      add(attribs.data);
      break;
    case 'input':
      if (attribs.type?.trim().toLowerCase() === 'image') add(attribs.src);
      break;
    case 'body':
      add(attribs.background);
      break;
  }
  return out;
}

/**
 * The URLs of a `srcset` ("a.jpg 1x, b.jpg 2x", "c.jpg 480w"), after the HTML spec's
 * parsing of it: a candidate's URL runs to whitespace, and a comma ends it only at its
 * end; its descriptors run to the next comma outside parentheses.
 */
export function srcsetUrls(srcset: string | undefined): string[] {
  if (srcset === undefined) return [];
  const urls: string[] = [];
  let pos = 0;
  const n = srcset.length;
  const space = (i: number): boolean => /[\t\n\f\r ]/.test(srcset.charAt(i));
  while (pos < n) {
    while (pos < n && (space(pos) || srcset.charAt(pos) === ',')) pos++;
    if (pos >= n) break;
    const start = pos;
    while (pos < n && !space(pos)) pos++;
    let url = srcset.slice(start, pos);
    if (url.endsWith(',')) {
      url = url.replace(/,+$/, '');
    } else {
      let depth = 0;
      while (pos < n) {
        const c = srcset.charAt(pos);
        if (c === '(') depth++;
        else if (c === ')' && depth > 0) depth--;
        else if (c === ',' && depth === 0) break;
        pos++;
      }
    }
    if (url.length > 0) urls.push(url);
  }
  return urls;
}
