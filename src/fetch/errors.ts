import { CobwebError } from '../errors.js';
import type { FetchErrorReason } from './types.js';

/** Raised by the fetcher itself (not by undici or node) when its own checks end an exchange (limits, undecodable bodies). */
export class FetcherError extends CobwebError {
  override name = 'FetcherError';
  readonly code = 'COBWEB_FETCH';
  constructor(
    readonly reason: FetchErrorReason,
    message: string,
  ) {
    super(message);
  }
}

/**
 * The connection refused by the address policy (see connector.ts). It travels through node's socket and
 * undici unchanged, so classifyError reads its reason like any FetcherError.
 */
export function privateAddressError(address: string, hostname: string): FetcherError {
  const where = hostname === address ? address : `${hostname} is at ${address}, which`;
  return new FetcherError(
    'private-address',
    `${where} is a private address (use --allow-private to crawl it)`,
  );
}

export interface ClassifiedError {
  reason: FetchErrorReason;
  message: string;
  /** No connection was opened: the name did not resolve, the port refused, or connecting timed out. */
  connectFailed?: true;
}

/** The timeouts in force, so that timeout messages can say which limit was hit. */
export interface TimeoutSettings {
  connectTimeoutMs: number;
  firstByteTimeoutMs: number;
}

const DNS_CODES = new Set([
  'ENOTFOUND',
  'EAI_AGAIN',
  'EAI_NONAME',
  'EAI_FAIL',
  'EAI_NODATA',
  'EAI_ADDRFAMILY',
]);
const RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'ECONNABORTED', 'UND_ERR_SOCKET']);
const TIMEOUT_CODES = new Set([
  'ETIMEDOUT',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);
const PROTOCOL_CODES = new Set(['UND_ERR_INFO', 'ERR_INVALID_HTTP_RESPONSE', 'ERR_HTTP_INVALID_STATUS_CODE']);
// Certificate problems come from OpenSSL under these names (no common prefix).
const TLS_CODES = new Set([
  'EPROTO',
  'CERT_HAS_EXPIRED',
  'CERT_NOT_YET_VALID',
  'CERT_REVOKED',
  'CERT_UNTRUSTED',
  'CERT_REJECTED',
  'CERT_SIGNATURE_FAILURE',
  'DEPTH_ZERO_SELF_SIGNED_CERT',
  'SELF_SIGNED_CERT_IN_CHAIN',
  'UNABLE_TO_VERIFY_LEAF_SIGNATURE',
  'UNABLE_TO_GET_ISSUER_CERT',
  'UNABLE_TO_GET_ISSUER_CERT_LOCALLY',
  'HOSTNAME_MISMATCH',
]);

function errorCode(error: unknown): string {
  if (typeof error === 'object' && error !== null && 'code' in error && typeof error.code === 'string') {
    return error.code;
  }
  return '';
}

function errorMessage(error: unknown): string {
  if (error instanceof Error && error.message !== '') return error.message;
  const code = errorCode(error);
  return code !== '' ? code : String(error);
}

function isTlsError(error: unknown, code: string): boolean {
  if (TLS_CODES.has(code) || code.startsWith('ERR_TLS_') || code.startsWith('ERR_SSL_')) return true;
  // OpenSSL errors carry `library` ("SSL routines", ...) even when their code is generic.
  return (
    typeof error === 'object' && error !== null && 'library' in error && typeof error.library === 'string'
  );
}

/** Maps a real error (from node:net, node:tls, node:dns, undici, zlib or this module) to a reason and a short message. */
export function classifyError(error: unknown, timeouts: TimeoutSettings): ClassifiedError {
  if (error instanceof FetcherError) return { reason: error.reason, message: error.message };
  const code = errorCode(error);
  const message = errorMessage(error);

  if (code === 'UND_ERR_CONNECT_TIMEOUT') {
    return {
      reason: 'timeout',
      message: `connect timeout after ${timeouts.connectTimeoutMs} ms`,
      connectFailed: true,
    };
  }
  if (code === 'UND_ERR_HEADERS_TIMEOUT') {
    return { reason: 'timeout', message: `no response headers within ${timeouts.firstByteTimeoutMs} ms` };
  }
  if (code === 'UND_ERR_BODY_TIMEOUT') {
    return { reason: 'timeout', message: `no body data for ${timeouts.firstByteTimeoutMs} ms` };
  }
  if (TIMEOUT_CODES.has(code)) return { reason: 'timeout', message };
  if (code === 'ECONNREFUSED') return { reason: 'refused', message, connectFailed: true };
  if (DNS_CODES.has(code)) return { reason: 'dns', message, connectFailed: true };
  if (RESET_CODES.has(code)) return { reason: 'reset', message };
  // The connection ended before the declared Content-Length arrived: the body was cut off.
  if (code === 'UND_ERR_RES_CONTENT_LENGTH_MISMATCH') {
    return { reason: 'reset', message: 'connection closed before the whole body arrived' };
  }
  if (code === 'UND_ERR_HEADERS_OVERFLOW')
    return { reason: 'too-large', message: 'response headers too large' };
  if (code === 'UND_ERR_RES_EXCEEDED_MAX_SIZE') return { reason: 'too-large', message };
  if (isTlsError(error, code)) {
    // OpenSSL's message is a long "80FC...:error:0A00010B:SSL routines:..." line; its `reason` is the gist.
    const gist = typeof error === 'object' && error !== null && 'reason' in error ? error.reason : undefined;
    return { reason: 'tls', message: typeof gist === 'string' && gist !== '' ? gist : message };
  }
  // undici 7's HTTPParserError often has no code (its code table lookup misses), hence the name check.
  const isParserError = error instanceof Error && error.name === 'HTTPParserError';
  if (isParserError || code.startsWith('HPE_') || PROTOCOL_CODES.has(code))
    return { reason: 'protocol', message };
  return { reason: 'network', message };
}
