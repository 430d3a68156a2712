import type { CobwebModule } from '../api.js';

/**
 * server: for each new site, the software it says it runs (Server, X-Powered-By) and
 * the address it answered from. Stored as the site's info and written to data/server.jsonl.
 */
const server: CobwebModule = {
  name: 'server',
  onSite(site, ctx) {
    const info = {
      server: site.headers.server ?? null,
      poweredBy: site.headers['x-powered-by'] ?? null,
      address: site.address,
    };
    ctx.emit({ origin: site.origin, ...info });
    return info;
  },
};

export default server;
