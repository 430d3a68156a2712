import type { CobwebModule } from '../api.js';

/**
 * forms: marks pages that have a form (`hasForm` in pages.jsonl) and writes each form's
 * action, method and field names to data/forms.jsonl. The store keeps the mark too
 * (`has_form` on the URL's row). It reads the page's facts: the crawl's own parse found
 * the forms.
 */
const forms: CobwebModule = {
  name: 'forms',
  onPage(page, ctx) {
    if (page.facts === null) return undefined;
    for (const f of page.facts.forms) ctx.emit({ page: page.url, ...f });
    return { hasForm: page.facts.forms.length > 0 };
  },
};

export default forms;
