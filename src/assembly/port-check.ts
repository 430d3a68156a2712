import { once } from 'node:events';
import { createServer } from 'node:net';
import { CrawlOptionError } from '../errors.js';
import type { HostPort } from './startup.js';

/**
 * Whether a port an option names can be listened on, asked before the data folder is
 * touched: a port in use would otherwise end the run after its folder was made. The port
 * is let go at once; port 0 (any free one) needs no asking.
 */
export async function checkPortFree(option: string, at: HostPort): Promise<void> {
  if (at.port === 0) return;
  const server = createServer();
  server.listen({ host: at.host, port: at.port, exclusive: true });
  const outcome = await new Promise<NodeJS.ErrnoException | null>((resolve) => {
    server.once('listening', () => resolve(null));
    server.once('error', (err) => resolve(err));
  });
  if (outcome === null) {
    server.close();
    await once(server, 'close');
    return;
  }
  const where = `${at.host.includes(':') ? `[${at.host}]` : at.host}:${at.port}`;
  const why =
    outcome.code === 'EADDRINUSE'
      ? `is in use by another program; stop it, or give ${option} another port`
      : outcome.code === 'EADDRNOTAVAIL'
        ? `: ${at.host} is no address of this machine; give ${option} one of its addresses, like 127.0.0.1`
        : outcome.code === 'EACCES'
          ? `: a port below 1024 needs more rights than this user has; give ${option} a port from 1024 up`
          : `cannot be listened on (${outcome.message})`;
  throw new CrawlOptionError(`${option} ${where} ${why}`.replace(' :', ':'));
}
