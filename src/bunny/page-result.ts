import type { Completion, NewLink, RejectedLink } from '../frontier/types.js';
import type { PageFields } from '../modules/api.js';
import type { EmittedRecord } from '../modules/module-host.js';
import { OBSERVED_FIELDS, type PageRecord } from '../output/pages-log.js';
import type { RecordDraft } from './page-record.js';

/**
 * A page's result: its pages.jsonl line (null when the URL will be tried again) and the
 * completion the store gets, which carries that line. Built once by page processing;
 * what the modules add makes a new result (withModuleAdditions), never a changed one.
 */
export interface PageResult {
  readonly record: PageRecord | null;
  readonly completion: Readonly<Completion>;
}

/** What the modules made of one page, gathered over its page hooks and its site's hooks. */
export interface ModuleAdditions {
  /** Fields for the page's line (onPage's answer). */
  fields?: PageFields;
  /** URLs the modules asked for, routed like links of the page. */
  links?: { accepted: readonly NewLink[]; rejected: readonly RejectedLink[] };
  /** What the hooks emitted, when the modules have no data folder of their own (a bunny). */
  records?: readonly EmittedRecord[];
}

/**
 * The page's result with what the modules added: their fields join its line (after the
 * crawl's own, which they may not replace), their links follow the page's, their records
 * ride on its completion (so a server writes a page's records only if its lease still
 * holds, whatever became of the batch's other leases). A page they added nothing to
 * keeps its result, the same objects.
 */
export function withModuleAdditions(result: PageResult, added: ModuleAdditions | undefined): PageResult {
  if (added === undefined) return result;
  const record =
    result.record === null || added.fields === undefined
      ? result.record
      : withFields(result.record, added.fields);
  const { links, records } = added;
  if (record === result.record && links === undefined && records === undefined) return result;
  const before = result.completion;
  const completion: Completion = {
    ...before,
    outlinks: links === undefined ? before.outlinks : followedBy(before.outlinks, links.accepted),
    rejected: links === undefined ? before.rejected : followedBy(before.rejected, links.rejected),
  };
  if (record !== null) completion.record = record;
  if (records !== undefined) completion.moduleRecords = records;
  return { record, completion };
}

/** `first` then `then`: `first` itself when there is nothing to add. */
export function followedBy<T>(first: readonly T[], then: readonly T[]): readonly T[] {
  return then.length === 0 ? first : [...first, ...then];
}

/**
 * A module's fields after the line's own: a field the line has keeps its place with the
 * module's value, a new one comes last. Fields named like what the crawl observed are
 * left out. Nothing to change (the forms module restates `hasForm` on every page, as
 * the parse found it): the line itself, not a copy.
 */
function withFields(record: PageRecord, fields: PageFields): PageRecord {
  let joined: (RecordDraft & Record<string, unknown>) | null = null;
  for (const [field, value] of Object.entries(fields)) {
    if (OBSERVED_FIELDS.has(field)) continue;
    if (joined === null && Object.hasOwn(record, field) && record[field] === value) continue;
    joined ??= { ...record };
    joined[field] = value;
  }
  return joined ?? record;
}
