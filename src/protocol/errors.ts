import { CobwebError } from '../errors.js';

/**
 * Error codes of the Cobweb packet protocol. One table serves both ends: the codec raises
 * the 1xx codes, the server sends the 2xx and 3xx codes in ERROR packets (docs/protocol.md,
 * "Error codes"). A code never changes meaning once published.
 */
export const ErrorCode = {
  /** The length field is below 3, or does not match what the type allows. */
  BAD_LENGTH: 100,
  /** The length field is over the receiver's packet limit. */
  TOO_LARGE: 101,
  /** The type byte names no packet. */
  UNKNOWN_TYPE: 102,
  /** A NUL-terminated string runs to the end of the packet without its NUL. */
  MISSING_NUL: 103,
  /** A string is not valid UTF-8. */
  BAD_TEXT: 104,
  /** A JSON body is not UTF-8 JSON text of one object. */
  BAD_JSON: 105,
  /** A JSON field is missing, of the wrong type, or out of range. */
  BAD_FIELD: 106,
  /** Flag bits that are reserved are set, or MORE is set on a packet that cannot be split. */
  BAD_FLAGS: 107,
  /** Request id 0 on a packet that needs one, or a nonzero id where 0 is required. */
  BAD_REQUEST_ID: 108,
  /** The stream ended in the middle of a packet. */
  TRUNCATED: 109,
  /** Fragments of one message do not fit together, or are too many. */
  BAD_FRAGMENTS: 110,
  /** Bytes are left after the last field the packet's layout defines. */
  TRAILING_BYTES: 111,
  /** A packet that only travels the other way (a reply sent to the server, a request sent to a client). */
  WRONG_DIRECTION: 112,
  /** The host and path of an original packet do not make a URL, or a URL cannot be carried by one. */
  BAD_URL: 113,
  /** Sender side only, never on the wire: one item is larger than a packet can carry. */
  ITEM_TOO_LARGE: 114,

  /** The packet needs the token and the connection has not sent AUTH. */
  AUTH_REQUIRED: 200,
  /** The token in AUTH is wrong. */
  AUTH_FAILED: 201,
  /** AUTH came after another packet; it must be the first. */
  AUTH_NOT_FIRST: 202,
  /** A bunny packet (LEASE, COMPLETE, ...) before HELLO. */
  HELLO_REQUIRED: 203,
  /** A file or module name that is not a plain name inside its folder. */
  BAD_NAME: 204,
  /** HELLO asked for a protocol version the server does not speak. */
  UNSUPPORTED_VERSION: 205,
  /** DEQUEUE on a connection that said HELLO or has a request outstanding (its typeless reply would be ambiguous). */
  DEQUEUE_NOT_ALLOWED: 206,
  /** CRAWL named a crawl the server does not hold (a bunny's HELLO starts one; CRAWL does not). */
  UNKNOWN_CRAWL: 207,
  /** CRAWL after a packet other than AUTH, twice, or naming another crawl than HELLO's. */
  CRAWL_NOT_FIRST: 208,

  /** The server has as many connections as it allows. */
  TOO_MANY_CONNECTIONS: 300,
  /** Nothing complete arrived for too long. */
  IDLE_TIMEOUT: 301,
  /** The connection has too many bytes buffered or requests outstanding. */
  BUSY: 302,
  /** The server is stopping. */
  SHUTTING_DOWN: 303,
  /** The server failed on its side (its store); the request may be retried. */
  INTERNAL: 304,
} as const;

export type ErrorCodeName = keyof typeof ErrorCode;
export type ErrorCodeNumber = (typeof ErrorCode)[ErrorCodeName];

const NAMES = new Map<number, ErrorCodeName>(
  Object.entries(ErrorCode).map(([name, code]) => [code, name as ErrorCodeName]),
);

/** The name of a code (`BAD_LENGTH`), or undefined for a code this version does not know. */
export function errorCodeName(code: number): ErrorCodeName | undefined {
  return NAMES.get(code);
}

/**
 * The one error the codec raises or reports. `wireCode` is a number of ErrorCode, the
 * same number an ERROR packet carries on the wire, and `codeName` its name.
 */
export class ProtocolError extends CobwebError {
  readonly code = 'COBWEB_PROTOCOL';
  readonly wireCode: ErrorCodeNumber;
  readonly codeName: ErrorCodeName;

  constructor(code: ErrorCodeNumber, message: string) {
    // Bad input, not bad code: the message says what was wrong, and a stack trace would say
    // nothing more while costing most of the time spent refusing a packet (a server under a
    // flood of malformed packets makes thousands). Only the sender-side ITEM_TOO_LARGE keeps
    // its stack, to show who tried to send the item.
    const limit = Error.stackTraceLimit;
    if (code !== ErrorCode.ITEM_TOO_LARGE) Error.stackTraceLimit = 0;
    super(message);
    Error.stackTraceLimit = limit;
    this.name = 'ProtocolError';
    this.wireCode = code;
    this.codeName = NAMES.get(code) ?? 'INTERNAL';
  }
}
