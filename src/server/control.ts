import { createHash } from 'node:crypto';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { count } from '../english.js';
import type { ModuleHost } from '../modules/module-host.js';
import { moduleStatsText } from '../modules/module-stats-text.js';
import { type Bodies, ErrorCode } from '../protocol/index.js';
import { describeSeen } from '../seen/describe.js';
import type { HeldCrawl, ServerCrawls } from './crawls.js';
import { appendNoFollow, plainNameIn } from './names.js';
import { bunniesOf, ControlError, type SessionContext } from './session.js';

export interface ControlParts {
  crawls: ServerCrawls;
  /** The server's modules, shared by its crawls. */
  modules: ModuleHost;
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
 * what they print and do. show, log and read are about one crawl (the connection's:
 * CRAWL, else the default one), its book of sites and its folder; modstat and loadmod
 * about the server's modules, which every crawl shares; quit stops the server. Names are
 * plain names inside the crawl's folder or the modules folder.
 */
export class Control {
  /** Modules loadmod loaded, as MODULE packets carry them to bunnies. */
  readonly loaded: Bodies['MODULE'][] = [];

  constructor(private readonly parts: ControlParts) {}

  /** SHOWDATA: the crawl's sites with their directories and counts, then its queue. */
  async show(crawl: HeldCrawl): Promise<string> {
    const { service } = crawl;
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
      `queue: ${st.queued} queued, ${st.leased} leased, ${st.retrying} waiting to retry, ${st.done} done, ${st.failed} failed, ${st.rejected} refused; bunnies: ${bunniesOf(this.parts.bunnies, crawl.name)}`,
    );
    if (st.seen !== undefined) lines.push(describeSeen(st.seen));
    for (const h of await service.store.hostQueues(SHOW_HOSTS)) lines.push(`  ${h.host}  ${h.queued} queued`);
    return `${lines.join('\n')}\n`;
  }

  /** MODSTAT: the modules loaded, and their calls and errors. */
  modstat(): string {
    const stats = this.parts.modules.stats();
    const lines = [`modules: ${stats.length}`];
    for (const m of stats) lines.push(`  ${moduleStatsText(m)}`);
    return `${lines.join('\n')}\n`;
  }

  /** LOGDATA: appends the crawl's sites and their module info to a file of its folder. */
  async logTo(crawl: HeldCrawl, name: string): Promise<void> {
    appendNoFollow(inFolder(crawl, name), crawl.service.sites.text());
  }

  /** READDATA: the sites of a log in the crawl's folder count as visited. */
  async readFrom(crawl: HeldCrawl, name: string): Promise<void> {
    const path = inFolder(crawl, name);
    if (!existsSync(path)) throw new ControlError(ErrorCode.BAD_NAME, `no file ${name} in the data folder`);
    await crawl.service.readLog(readFileSync(path, 'utf8'));
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
    // Its records go to the data/ of every crawl open: each must let it have its file there.
    const crawls = await this.parts.crawls.all();
    const report = await this.parts.modules.add(path, (module) => {
      for (const { service } of crawls) {
        const files = service.moduleData;
        if (!files.claim(module))
          return `${files.file(module)} is not cobweb's, and it would write its records into it`;
      }
      return undefined;
    });
    if (report.refused !== undefined || report.name === null) {
      return `module ${name} refused: ${report.refused ?? 'it has no name'}\n`;
    }
    const source = readFileSync(path, 'utf8');
    const module = { name: report.name, sha256: createHash('sha256').update(source).digest('hex'), source };
    this.loaded.push(module);
    let sent = 0;
    for (const b of this.parts.bunnies) if (b.pushModule(module)) sent++;
    const hooks = [report.hooks.page ? 'page' : '', report.hooks.site ? 'site' : ''].filter(Boolean);
    return `module ${report.name} loaded (hooks: ${hooks.join(', ')}); its selfTest passed; sent to ${count(sent, 'bunny', 'bunnies')}\n`;
  }

  /** QUIT: every crawl's cobweb.log is written (replacing the old one), then the server stops. */
  async quit(): Promise<void> {
    await this.writeLog();
    await this.parts.stop();
  }

  /** cobweb.log in each crawl's folder, replaced whole. */
  async writeLog(): Promise<void> {
    for (const crawl of await this.parts.crawls.all()) {
      const file = crawl.layout.log;
      writeFileSync(`${file}.tmp`, crawl.service.sites.text());
      renameSync(`${file}.tmp`, file);
    }
  }
}

function inFolder(crawl: HeldCrawl, name: string): string {
  const path = plainNameIn(crawl.layout.root, name);
  if (path === null)
    throw new ControlError(ErrorCode.BAD_NAME, `"${name}" is not a plain file name inside the data folder`);
  return path;
}
