import { createServer as createNetServer, type LookupFunction, type Socket } from 'node:net';
import { afterEach, describe, expect, it, onTestFinished } from 'vitest';
import { createConnector } from '../../src/fetch/connector.js';
import { classifyError, FetcherError } from '../../src/fetch/errors.js';
import { startRawServer, type TestServer } from './servers.js';

const TIMEOUTS = { connectTimeoutMs: 10_000, firstByteTimeoutMs: 30_000 };

/** The shape node's dns module gives a failed getaddrinfo (see node's lib/internal/errors.js, dnsException). */
function getaddrinfoError(code: string, hostname: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`getaddrinfo ${code} ${hostname}`), {
    code,
    errno: -3008,
    syscall: 'getaddrinfo',
    hostname,
  });
}

function connectWith(connector: ReturnType<typeof createConnector>, hostname: string, port: number) {
  return new Promise<{ error: Error | null; socket: Socket | null }>((resolve) => {
    connector(
      { hostname, host: `${hostname}:${port}`, protocol: 'http:', port: String(port) },
      (error, socket) => resolve({ error, socket }),
    );
  });
}

describe('classifyError', () => {
  it.each([
    ['ENOTFOUND', 'dns'],
    ['EAI_AGAIN', 'dns'],
    ['EAI_NONAME', 'dns'],
    ['ECONNREFUSED', 'refused'],
    ['ECONNRESET', 'reset'],
    ['EPIPE', 'reset'],
    ['UND_ERR_SOCKET', 'reset'],
    ['UND_ERR_CONNECT_TIMEOUT', 'timeout'],
    ['UND_ERR_HEADERS_TIMEOUT', 'timeout'],
    ['UND_ERR_BODY_TIMEOUT', 'timeout'],
    ['CERT_HAS_EXPIRED', 'tls'],
    ['ERR_TLS_CERT_ALTNAME_INVALID', 'tls'],
    ['ERR_SSL_WRONG_VERSION_NUMBER', 'tls'],
    ['HPE_INVALID_CONSTANT', 'protocol'],
    ['UND_ERR_INFO', 'protocol'],
    ['EHOSTUNREACH', 'network'],
  ])('maps %s to %s', (code, reason) => {
    const error = Object.assign(new Error(`failed: ${code}`), { code });
    expect(classifyError(error, TIMEOUTS).reason).toBe(reason);
  });

  it('says which timeout was hit', () => {
    const connect = Object.assign(new Error('Connect Timeout Error'), { code: 'UND_ERR_CONNECT_TIMEOUT' });
    expect(classifyError(connect, TIMEOUTS).message).toBe('connect timeout after 10000 ms');
  });

  it("keeps the fetcher's own reasons", () => {
    expect(classifyError(new FetcherError('too-large', 'body over 5 bytes'), TIMEOUTS)).toEqual({
      reason: 'too-large',
      message: 'body over 5 bytes',
    });
  });

  it('classifies a non-Error value as network', () => {
    expect(classifyError('weird', TIMEOUTS)).toEqual({ reason: 'network', message: 'weird' });
  });
});

describe('createConnector', () => {
  const servers: TestServer[] = [];
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
  });

  it('dials the mapped address for a hostname:port in the resolve map', async () => {
    const server = await startRawServer((socket) => socket.end(), '127.0.0.2');
    servers.push(server);
    const connector = createConnector({
      connectTimeoutMs: 1000,
      resolve: new Map([[`Site-B.test:${server.port}`, '127.0.0.2']]),
    });

    const { error, socket } = await connectWith(connector, 'site-b.test', server.port);

    expect(error).toBeNull();
    expect(socket?.remoteAddress).toBe('127.0.0.2');
    socket?.destroy();
  });

  it('dials a wildcard entry for any host under it, and an exact entry before it', async () => {
    const wild = await startRawServer((socket) => socket.end(), '127.0.0.2');
    servers.push(wild);
    // The exact entry's server on the same port, another address: the port is part of both keys.
    const exact = createNetServer((socket) => socket.end());
    await new Promise<void>((listening) => exact.listen(wild.port, '127.0.0.3', listening));
    onTestFinished(() => new Promise<void>((closed) => exact.close(() => closed())));
    const connector = createConnector({
      connectTimeoutMs: 1000,
      resolve: new Map([
        [`*.scale.test:${wild.port}`, '127.0.0.2'],
        [`h2.scale.test:${wild.port}`, '127.0.0.3'],
      ]),
    });

    const viaWildcard = await connectWith(connector, 'h1.scale.test', wild.port);
    const viaExact = await connectWith(connector, 'h2.scale.test', wild.port);

    expect(viaWildcard.error).toBeNull();
    expect(viaWildcard.socket?.remoteAddress).toBe('127.0.0.2');
    expect(viaExact.error).toBeNull();
    expect(viaExact.socket?.remoteAddress).toBe('127.0.0.3');
    viaWildcard.socket?.destroy();
    viaExact.socket?.destroy();
  });

  it('reports a failed name lookup as dns, through the pluggable lookup (no real DNS query)', async () => {
    const failingLookup: LookupFunction = (hostname, _options, callback) => {
      process.nextTick(() => callback(getaddrinfoError('ENOTFOUND', hostname), '', 4));
    };
    const connector = createConnector({ connectTimeoutMs: 1000, lookup: failingLookup });

    const { error } = await connectWith(connector, 'no-such-host.test', 80);

    expect(error).not.toBeNull();
    expect(classifyError(error, TIMEOUTS)).toEqual({
      reason: 'dns',
      message: 'getaddrinfo ENOTFOUND no-such-host.test',
      connectFailed: true,
    });
  });

  it('leaves hostnames outside the map to the lookup', async () => {
    const server = await startRawServer((socket) => socket.end(), '127.0.0.3');
    servers.push(server);
    const looked: string[] = [];
    // node asks for all addresses (options.all) when it may try several (autoSelectFamily).
    const lookup: LookupFunction = (hostname, options, callback) => {
      looked.push(hostname);
      const address = '127.0.0.3';
      process.nextTick(() =>
        options.all ? callback(null, [{ address, family: 4 }]) : callback(null, address, 4),
      );
    };
    const connector = createConnector({
      connectTimeoutMs: 1000,
      resolve: new Map([['other.test:80', '127.0.0.9']]),
      lookup,
    });

    const { error, socket } = await connectWith(connector, 'site-c.test', server.port);

    expect(error).toBeNull();
    expect(looked).toEqual(['site-c.test']);
    expect(socket?.remoteAddress).toBe('127.0.0.3');
    socket?.destroy();
  });
});
