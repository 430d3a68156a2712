import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ModuleHost } from '../modules/module-host.js';
import type { LogLevel } from '../options/options.js';

/** A module as a server sends it (MODULE): its name, the SHA-256 of its source, the source. */
export interface SentModule {
  name: string;
  sha256: string;
  source: string;
}

/**
 * Modules a server loaded with loadmod, arriving at a bunny: each is checked against
 * its digest, written to `<data>/modules/`, and loaded; its page hooks run on the pages
 * fetched from then on. The same module sent again (after a reconnect) is loaded once.
 */
export class ServerModules {
  private readonly seen = new Set<string>();

  constructor(
    private readonly dataDir: string,
    private readonly host: ModuleHost,
    private readonly log: (line: string, level?: LogLevel) => void,
  ) {}

  async load(m: SentModule): Promise<void> {
    if (this.seen.has(m.sha256)) return;
    this.seen.add(m.sha256);
    const digest = createHash('sha256').update(m.source).digest('hex');
    if (digest !== m.sha256) {
      this.log(`module ${m.name} from the server does not match its SHA-256: not loaded`, 'error');
      return;
    }
    const dir = join(this.dataDir, 'modules');
    mkdirSync(dir, { recursive: true });
    const path = join(dir, `${m.name.replace(/[^A-Za-z0-9_-]/g, '_')}-${digest.slice(0, 12)}.mjs`);
    writeFileSync(path, m.source);
    const report = await this.host.add(path);
    if (report.refused !== undefined)
      this.log(`module ${m.name} from the server refused: ${report.refused}`, 'error');
    else this.log(`module ${m.name} loaded from the server`);
  }
}
