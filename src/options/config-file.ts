import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { extname } from 'node:path';
import type { parse as ParseYaml } from 'yaml';
import { CrawlOptionError } from '../errors.js';
import { OptionValueError, readFileValue } from './option-kinds.js';
import type { OptionSpec } from './option-table.js';
import { type CrawlOptions, nearestOption, OPTIONS } from './options.js';

/** A config file's options, read and checked by the option table's kinds. */
export interface ConfigFile {
  file: string;
  options: Partial<CrawlOptions>;
}

/**
 * Reads a config file: JSON (a .json file) or YAML (any other), one object whose keys
 * are crawl()'s option names, `seeds` among them, and `hosts` for per-host sections.
 * An unknown key or a bad value is a CrawlOptionError naming the file and the key.
 */
export function readConfigFile(file: string): ConfigFile {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (err) {
    throw new CrawlOptionError(`cannot read the config file ${file}: ${(err as Error).message}`);
  }
  let data: unknown;
  try {
    data = extname(file).toLowerCase() === '.json' ? JSON.parse(text) : parseYaml(text);
  } catch (err) {
    // The parser's first line says what and where ("... at line 4, column 3:"); the lines
    // after it quote the file, which the one line cobweb prints leaves out.
    const message = ((err as Error).message.split('\n')[0] ?? '').replace(/:\s*$/, '');
    throw new CrawlOptionError(
      `${file} is not valid ${extname(file) === '.json' ? 'JSON' : 'YAML'}: ${message}`,
    );
  }
  return { file, options: configOptions(file, data ?? {}) };
}

/** YAML's parser, loaded only for a YAML config file: a crawl without one does not pay for it. */
function parseYaml(text: string): unknown {
  const yaml = createRequire(import.meta.url)('yaml') as { parse: typeof ParseYaml };
  return yaml.parse(text);
}

/** The options of a parsed config file, each read by its kind. */
export function configOptions(file: string, data: unknown): Partial<CrawlOptions> {
  if (typeof data !== 'object' || data === null || Array.isArray(data)) {
    throw new CrawlOptionError(`${file}: expected keys and values, like "maxPages: 100"`);
  }
  const specs: Record<string, OptionSpec<unknown> | undefined> = OPTIONS;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(data)) {
    if (key === 'seeds') {
      if (!Array.isArray(value) || !value.every((s) => typeof s === 'string')) {
        throw new CrawlOptionError(`${file}: seeds: expected a list of URLs`);
      }
      out.seeds = value;
      continue;
    }
    const spec = Object.hasOwn(specs, key) ? specs[key] : undefined;
    if (spec === undefined) {
      const near = nearestOption(key);
      throw new CrawlOptionError(
        `${file}: unknown key "${key}"${near === null ? '' : `; did you mean "${near}"?`} (the keys are crawl()'s option names)`,
      );
    }
    try {
      out[key] = readFileValue(spec.kind, value);
    } catch (err) {
      if (err instanceof OptionValueError) throw new CrawlOptionError(`${file}: ${key}: ${err.message}`);
      throw err;
    }
  }
  return out as Partial<CrawlOptions>;
}
