import { Parser } from 'htmlparser2';
import type { CobwebModule } from '../api.js';

interface Form {
  action: string;
  method: string;
  inputs: string[];
}

const FIELDS = new Set(['input', 'select', 'textarea', 'button']);

/** Forms of a page, with their action resolved against the page (or its <base href>). */
export function formsOf(html: string, pageUrl: string): Form[] {
  const forms: Form[] = [];
  let base = pageUrl;
  let current: Form | null = null;
  const parser = new Parser(
    {
      onopentag(name, attrs) {
        if (name === 'base' && attrs.href !== undefined && base === pageUrl) {
          base = URL.parse(attrs.href, pageUrl)?.href ?? pageUrl;
        } else if (name === 'form') {
          current = {
            action: URL.parse(attrs.action ?? '', base)?.href ?? base,
            method: (attrs.method ?? 'get').trim().toUpperCase() || 'GET',
            inputs: [],
          };
          forms.push(current);
        } else if (current !== null && FIELDS.has(name) && attrs.name !== undefined && attrs.name !== '') {
          if (!current.inputs.includes(attrs.name)) current.inputs.push(attrs.name);
        }
      },
      onclosetag(name) {
        if (name === 'form') current = null;
      },
    },
    { decodeEntities: true },
  );
  parser.write(html);
  parser.end();
  return forms;
}

/**
 * forms: marks pages that have a form (`hasForm` in pages.jsonl) and writes each form's
 * action, method and field names to data/forms.jsonl. The store keeps the mark too
 * (`has_form` on the URL's row).
 */
const forms: CobwebModule = {
  name: 'forms',
  onPage(page, ctx) {
    if (page.html === null) return undefined;
    // Most pages have no form: skip the parse for them.
    if (!/<form[\s>/]/i.test(page.html)) return { hasForm: false };
    const found = formsOf(page.html, page.url);
    for (const f of found) ctx.emit({ page: page.url, ...f });
    return { hasForm: found.length > 0 };
  },
  selfTest() {
    const [f] = formsOf(
      '<form action="/s" method=post><input name=q><select name=lang></select></form>',
      'http://a.test/x',
    );
    if (f?.action !== 'http://a.test/s' || f.method !== 'POST' || f.inputs.join() !== 'q,lang') {
      throw new Error(`form extraction is broken: ${JSON.stringify(f)}`);
    }
  },
};

export default forms;
