/**
 * The Cobweb packet protocol: a pure codec, no sockets (docs/protocol.md). A server or a
 * client feeds bytes to a PacketDecoder, joins split messages with a MessageJoiner, and
 * writes what encodeMessage() returns.
 */

export { LEASE_LIMITS } from './bodies.js';
export { checkFrameHead, decodeFrame, encode, type PacketSource } from './codec.js';
export {
  ErrorCode,
  type ErrorCodeName,
  type ErrorCodeNumber,
  errorCodeName,
  ProtocolError,
} from './errors.js';
export { fitRecordJson } from './fit-record.js';
export {
  type DecodeResult,
  type DecoderOptions,
  type DecoderState,
  decode,
  decodeDequeueReply,
  PacketDecoder,
} from './framing.js';
export {
  type CompleteMessage,
  foldCompletions,
  type JoinerOptions,
  MAX_SPLIT_BYTES,
  type Message,
  MessageJoiner,
} from './join.js';
export { formatSiteLine, parseSiteLine, type SiteLogLine } from './log-format.js';
export { decodeDequeueReplyFrame, encodeDequeueReply } from './original.js';
export { originalFromUrl, UNRESOLVED, urlFromOriginal } from './original-url.js';
export { encodeMessage, splitMessage } from './split.js';
export { readTextAnswer, type TextAnswer, textAnswerBytes } from './text-answer.js';
export * from './types.js';
