import { createRequire } from 'node:module';

/** One metric family as parse-prometheus-text-format gives it. */
export interface Family {
  name: string;
  help: string;
  type: 'COUNTER' | 'GAUGE' | 'HISTOGRAM' | 'SUMMARY' | 'UNTYPED';
  metrics: {
    value?: string;
    labels?: Record<string, string>;
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }[];
}

const parseText = createRequire(import.meta.url)('parse-prometheus-text-format') as (
  text: string,
) => Family[];

const NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;
const SAMPLE = /^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{.*\})? (-?[0-9.e+-]+|NaN|\+Inf|-Inf)$/;

/**
 * /metrics in the Prometheus text format, parsed by parse-prometheus-text-format, and
 * held to what that parser lets pass: every line a comment or a sample of a family with
 * a HELP and a TYPE, names of the allowed characters, counters ending in _total.
 */
export function parseMetrics(text: string): Map<string, Family> {
  const typed = new Set<string>();
  for (const line of text.split('\n')) {
    if (line === '') continue;
    const type = /^# TYPE (\S+) (counter|gauge|histogram|summary|untyped)$/.exec(line);
    if (type !== null) {
      typed.add(type[1] as string);
      continue;
    }
    if (line.startsWith('# HELP ')) continue;
    const m = SAMPLE.exec(line);
    if (m === null) throw new Error(`not a sample line of the text format: ${line}`);
    const name = m[1] as string;
    const family = typed.has(name) ? name : name.replace(/_(bucket|sum|count)$/, '');
    if (!typed.has(family)) throw new Error(`a sample before its # TYPE line: ${line}`);
  }
  const families = new Map<string, Family>();
  for (const f of parseText(text)) {
    if (!NAME.test(f.name)) throw new Error(`not a metric name: ${f.name}`);
    if (f.type === 'COUNTER' && !f.name.endsWith('_total'))
      throw new Error(`a counter not named *_total: ${f.name}`);
    families.set(f.name, f);
  }
  return families;
}

/** A family's samples as { 'label=value,...': number }; '' for a sample without labels. */
export function samples(families: Map<string, Family>, name: string): Record<string, number> {
  const f = families.get(name);
  if (f === undefined) throw new Error(`no metric ${name}`);
  const out: Record<string, number> = {};
  for (const m of f.metrics) {
    const key = Object.entries(m.labels ?? {})
      .map(([k, v]) => `${k}=${v}`)
      .join(',');
    out[key] = Number(m.value ?? m.count);
  }
  return out;
}

/** A family's samples keyed by the value of its one label. */
export function byLabel(families: Map<string, Family>, name: string): Record<string, number> {
  const out: Record<string, number> = {};
  for (const [key, v] of Object.entries(samples(families, name))) out[key.split('=')[1] ?? ''] = v;
  return out;
}
