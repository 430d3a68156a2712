// Text sitemaps: the protocol allows a plain UTF-8 file with one URL per line.

export interface TextSitemap {
  urls: string[];
  /** More URLs were listed than the limit allowed. */
  truncated: boolean;
}

// Strict on purpose: this is how a text sitemap is told apart from any other text file.
const ABSOLUTE_HTTP_URL = /^https?:\/\/\S+$/i;
const LINE_BREAK = /\r\n|\r|\n/;

/**
 * The URLs of a text sitemap, or null when `text` is not one: it has no URL, or a non-empty
 * line that is not an absolute http(s) URL. `lastLineMayBeCut`: the text was truncated, so
 * an unterminated last line may be a URL cut in the middle and is dropped.
 */
export function parseTextSitemap(
  text: string,
  maxUrls: number,
  lastLineMayBeCut: boolean,
): TextSitemap | null {
  const lines = text.split(LINE_BREAK);
  if (lastLineMayBeCut) lines.pop();
  const urls: string[] = [];
  let truncated = false;
  for (const line of lines) {
    const url = line.trim();
    if (url.length === 0) continue;
    if (!ABSOLUTE_HTTP_URL.test(url)) return null;
    if (urls.length < maxUrls) urls.push(url);
    else truncated = true;
  }
  return urls.length === 0 && !truncated ? null : { urls, truncated };
}
