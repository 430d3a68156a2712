import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { count } from '../bunny/english.js';
import { type Bodies, ErrorCode } from '../protocol/index.js';
import type { CrawlService } from './crawl-service.js';
import { appendNoFollow, plainNameIn } from './names.js';
import { ControlError, type SessionContext } from './session.js';

export interface ControlParts {
  service: CrawlService;
  dataDir: string;
  /** --modules DIR: where loadmod finds NAME.mjs or NAME.js; null when not given. */
  modulesDir: string | null;
  /** Connections that said HELLO: a module loaded reaches them. */
  bunnies: SessionContext['bunnies'];
  /** Stops the server (QUIT). */
  stop: () => Promise<void>;
}

const SHOW_HOSTS = 1000;

/**
 * The control commands (`cobweb show`, `modstat`, `log`, `read`, `loadmod`, `quit`):
 * what they print and do. Names are plain names inside the data or modules folder.
 */
export class Control {
  /** Modules loadmod loaded, as MODULE packets carry them to bunnies. */
  readonly loaded: Bodies['MODULE'][] = [];

  constructor(private readonly parts: ControlParts) {}

  /** SHOWDATA: the sites with their directories and counts, then the queue. */
  async show(): Promise<string> {
    const { service } = this.parts;
    const lines: string[] = [];
    const sites = service.sites.all();
    lines.push(`sites: ${sites.length}`);
    for (const s of sites) {
      const where =
        s.address === null ? '' : ` ${s.address.includes(':') ? `[${s.address}]` : s.address}:${s.port}`;
      lines.push(`  ${s.origin}${where}  ${count(s.count, 'URL')}  hosts: ${s.hosts.join(', ')}`);
      lines.push(`    directories: ${s.directories.join(' ')}`);
      const info = Object.keys(s.info);
      if (info.length > 0) lines.push(`    modules: ${JSON.stringify(s.info)}`);
    }
    const st = await service.store.stats();
    lines.push(
      `queue: ${st.queued} queued, ${st.leased} leased, ${st.retrying} waiting to retry, ${st.done} done, ${st.failed} failed, ${st.rejected} refused; bunnies: ${this.parts.bunnies.size}`,
    );
    for (const h of await service.store.hostQueues(SHOW_HOSTS)) lines.push(`  ${h.host}  ${h.queued} queued`);
    return `${lines.join('\n')}\n`;
  }

  /** MODSTAT: the modules loaded, and their calls and errors. */
  modstat(): string {
    const stats = this.parts.service.modules.stats();
    const lines = [`modules: ${stats.length}`];
    for (const m of stats) {
      lines.push(
        `  ${m.name}: ${count(m.calls, 'call')}, ${count(m.errors, 'error')}, ${count(m.timeouts, 'timeout')}, ${m.meanMs.toFixed(2)} ms mean`,
      );
    }
    return `${lines.join('\n')}\n`;
  }

  /** LOGDATA: appends the sites and their module info to a file of the data folder. */
  async logTo(name: string): Promise<void> {
    appendNoFollow(this.inData(name), this.parts.service.sites.text());
  }

  /** READDATA: the sites of a log in the data folder count as visited. */
  async readFrom(name: string): Promise<void> {
    const path = this.inData(name);
    if (!existsSync(path)) throw new ControlError(ErrorCode.BAD_NAME, `no file ${name} in the data folder`);
    await this.parts.service.readLog(readFileSync(path, 'utf8'));
  }

  /** NEWMOD: loads NAME.mjs or NAME.js from the modules folder; the answer says how it went. */
  async loadModule(name: string): Promise<string> {
    const dir = this.parts.modulesDir;
    if (dir === null) return `no module loaded: the server was started without --modules DIR\n`;
    if (!/^[A-Za-z0-9_.-]{1,64}$/.test(name) || name.startsWith('.')) {
      throw new ControlError(ErrorCode.BAD_NAME, `"${name}" is not a plain module name`);
    }
    const path = [`${name}.mjs`, `${name}.js`]
      .map((file) => plainNameIn(dir, file))
      .find((p): p is string => p !== null && existsSync(p));
    if (path === undefined) {
      if (plainNameIn(dir, `${name}.mjs`) === null) {
        throw new ControlError(ErrorCode.BAD_NAME, `${name} leads outside the modules folder`);
      }
      return `no module ${name}: neither ${name}.mjs nor ${name}.js is in ${dir}\n`;
    }
    const files = this.parts.service.moduleData;
    const report = await this.parts.service.modules.add(path, (module) =>
      files.claim(module)
        ? undefined
        : `${files.file(module)} is not cobweb's, and it would write its records into it`,
    );
    if (report.refused !== undefined || report.name === null) {
      return `module ${name} refused: ${report.refused ?? 'it has no name'}\n`;
    }
    const source = readFileSync(path, 'utf8');
    const module = { name: report.name, sha256: createHash('sha256').update(source).digest('hex'), source };
    this.loaded.push(module);
    for (const b of this.parts.bunnies) b.pushModule(module);
    const hooks = [report.hooks.page ? 'page' : '', report.hooks.site ? 'site' : ''].filter(Boolean);
    return `module ${report.name} loaded (hooks: ${hooks.join(', ')}); its selfTest passed; sent to ${count(this.parts.bunnies.size, 'bunny', 'bunnies')}\n`;
  }

  /** QUIT: cobweb.log is written (replacing the old one), then the server stops. */
  async quit(): Promise<void> {
    this.writeLog();
    await this.parts.stop();
  }

  /** cobweb.log in the data folder, replaced whole. */
  writeLog(): void {
    const file = join(this.parts.dataDir, 'cobweb.log');
    writeFileSync(`${file}.tmp`, this.parts.service.sites.text());
    renameSync(`${file}.tmp`, file);
  }

  private inData(name: string): string {
    const path = plainNameIn(this.parts.dataDir, name);
    if (path === null)
      throw new ControlError(ErrorCode.BAD_NAME, `"${name}" is not a plain file name inside the data folder`);
    return path;
  }
}
