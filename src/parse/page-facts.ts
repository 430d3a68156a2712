// The facts about a page that modules read instead of parsing it again: gathered by the
// page's one parse (parseHtml), as plain data that crosses threads cheaply.

import type { Attributes } from './tag-reader.js';

/** One `<form>`: where it sends, how, and the names of its fields. */
export interface PageForm {
  /** The action resolved against the page's base (the base itself when empty or missing). */
  action: string;
  /** Uppercase; GET when missing or empty. */
  method: string;
  /** Names of its input, select, textarea and button fields, each once, in document order. */
  inputs: string[];
}

/** One `<meta>` with content: its name (or property, or http-equiv), lowercase. */
export interface MetaTag {
  name: string;
  content: string;
}

export interface PageFacts {
  /** The first `<title>` outside svg and math, whitespace collapsed; null if none or blank. */
  title: string | null;
  /** `<html lang>`, trimmed; null if missing or blank. */
  language: string | null;
  /** The first `<link rel=canonical>`, resolved against the page's base; null if none. */
  canonical: string | null;
  /** The page's `<meta>` tags with a name, property or http-equiv and a content, in order. */
  meta: MetaTag[];
  forms: PageForm[];
}

// A hostile page must not make the facts large: they are kept per page until written.
const MAX_META = 64;
const MAX_FORMS = 32;
const MAX_INPUTS = 64;
const MAX_VALUE_CHARS = 2048;

/** A form's fields, whose names the facts list. */
export const FIELDS = new Set(['input', 'select', 'textarea', 'button']);

/** Gathers the facts parseHtml does not need itself, from the tags it is shown. */
export class FactsCollector {
  language: string | null = null;
  private htmlSeen = false;
  readonly meta: MetaTag[] = [];
  /** Forms with their raw action, resolved once the base is final. */
  private readonly forms: { action: string; method: string; inputs: string[] }[] = [];
  private inForm = false;

  onHtml(attribs: Attributes): void {
    if (this.htmlSeen) return;
    this.htmlSeen = true;
    const lang = attribs.lang?.trim();
    if (lang !== undefined && lang !== '') this.language = clip(lang);
  }

  onMeta(attribs: Attributes): void {
    const content = attribs.content;
    const name = attribs.name ?? attribs.property ?? attribs['http-equiv'];
    if (content === undefined || name === undefined || this.meta.length >= MAX_META) return;
    const key = name.trim().toLowerCase();
    if (key !== '') this.meta.push({ name: clip(key), content: clip(content) });
  }

  onForm(attribs: Attributes): void {
    this.inForm = false;
    if (this.forms.length >= MAX_FORMS) return;
    this.inForm = true;
    this.forms.push({
      action: clip(attribs.action ?? ''),
      method: (attribs.method ?? 'get').trim().toUpperCase() || 'GET',
      inputs: [],
    });
  }

  onFormEnd(): void {
    this.inForm = false;
  }

  /** Whether a field tag belongs to a form being gathered (the caller skips the rest). */
  wantsField(name: string): boolean {
    return this.inForm && FIELDS.has(name);
  }

  onField(attribs: Attributes): void {
    const name = attribs.name;
    const form = this.forms[this.forms.length - 1];
    if (name === undefined || name === '' || form === undefined || form.inputs.length >= MAX_INPUTS) return;
    if (!form.inputs.includes(name)) form.inputs.push(clip(name));
  }

  facts(title: string | null, canonicalHref: string | null, base: string): PageFacts {
    return {
      title,
      language: this.language,
      canonical: canonicalHref === null ? null : (URL.parse(canonicalHref, base)?.href ?? null),
      meta: this.meta,
      forms: this.forms.map((f) => ({
        action: URL.parse(f.action, base)?.href ?? base,
        method: f.method,
        inputs: f.inputs,
      })),
    };
  }
}

function clip(value: string): string {
  return value.length > MAX_VALUE_CHARS ? value.slice(0, MAX_VALUE_CHARS) : value;
}
