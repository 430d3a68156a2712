/**
 * Putting split messages back together. Packets of one message share type and request id;
 * all but the last carry MORE. Lists are joined in order, counts (`added`) summed, other
 * fields taken from the last packet; a MODULE's source pieces are joined. A COMPLETE's
 * continuation entries are folded into the completion they continue, so what comes out
 * holds whole completions only.
 */
import { ErrorCode, ProtocolError } from './errors.js';
import {
  type Bodies,
  MAX_PACKET,
  type OurPacketName,
  type OurPacketOf,
  type Packet,
  type WireCompletion,
  type WireCompletionPart,
} from './types.js';

/** A COMPLETE as it comes out of the joiner: every entry a whole completion. */
export type CompleteMessage = Omit<OurPacketOf<'COMPLETE'>, 'body'> & {
  body: { completions: WireCompletion[] };
};

/** A whole message: any packet, with COMPLETE's continuations folded. */
export type Message = Exclude<Packet, OurPacketOf<'COMPLETE'>> | CompleteMessage;

export interface JoinerOptions {
  /** Most packets one message may take (each up to 64 KiB). Default 256. */
  maxFragments?: number;
  /** Most messages a connection may have half received at once. Default 16. */
  maxOpen?: number;
  /**
   * Most bytes (on the wire) of messages half received at once, all of them together:
   * what one connection may make its receiver hold. Default MAX_SPLIT_BYTES, one
   * message of the most packets.
   */
  maxBytes?: number;
}

/** The wire bytes of a message split into the most packets a joiner takes by default (256 x 64 KiB). */
export const MAX_SPLIT_BYTES = 256 * MAX_PACKET;

function badFragments(message: string): never {
  throw new ProtocolError(ErrorCode.BAD_FRAGMENTS, message);
}

const LISTS: Partial<Record<OurPacketName, string[]>> = {
  LEASES: ['leases'],
  COMPLETE: ['completions'],
  COMPLETED: ['stale', 'records'],
  RELEASE: ['releases'],
  EXTEND: ['leases'],
  EXTENDED: ['leases', 'stale'],
  ADD: ['links', 'rejected'],
  ADDED: ['records'],
  ACK: ['ids', 'lines'],
  COOKIEJAR: ['cookies'],
  SAVECOOKIES: ['cookies'],
  ROBOTSREPLY: ['text'],
  SAVEROBOTS: ['text'],
  SEEDS: ['origins', 'addresses'],
  SEEDLIST: ['origins', 'addresses'],
};

function mergeBodies(type: OurPacketName, bodies: Record<string, unknown>[]): Record<string, unknown> {
  const last = bodies[bodies.length - 1] as Record<string, unknown>;
  if (type === 'MODULE') {
    const first = bodies[0] as Bodies['MODULE'];
    for (const b of bodies as Bodies['MODULE'][]) {
      if (b.name !== first.name || b.sha256 !== first.sha256) {
        badFragments(`MODULE pieces of one message name different modules (${first.name}, ${b.name})`);
      }
    }
    return { ...first, source: (bodies as Bodies['MODULE'][]).map((b) => b.source).join('') };
  }
  const merged: Record<string, unknown> = { ...last };
  for (const list of LISTS[type] ?? []) {
    // An optional list (ACK's lines) stays absent when no packet had it.
    if (bodies.every((b) => b[list] === undefined)) continue;
    merged[list] = bodies.flatMap((b) => (b[list] as unknown[] | undefined) ?? []);
  }
  if (type === 'COMPLETED' || type === 'ADDED') {
    merged.added = bodies.reduce((sum, b) => sum + (b.added as number), 0);
  }
  return merged;
}

/** Folds COMPLETE's continuation entries into their heads. */
export function foldCompletions(entries: readonly (WireCompletion | WireCompletionPart)[]): WireCompletion[] {
  const whole: WireCompletion[] = [];
  const byLease = new Map<string, WireCompletion>();
  for (const e of entries) {
    const head = byLease.get(e.lease);
    if ('outcome' in e) {
      if (head !== undefined) badFragments(`COMPLETE completes lease "${e.lease}" twice in one message`);
      const copy: WireCompletion = {
        ...e,
        outlinks: [...e.outlinks],
        rejected: [...e.rejected],
        modules: [...e.modules],
      };
      byLease.set(e.lease, copy);
      whole.push(copy);
    } else {
      if (head === undefined) {
        badFragments(
          `COMPLETE continues lease "${e.lease}", whose completion (with its outcome) did not come first`,
        );
      }
      head.outlinks.push(...e.outlinks);
      head.rejected.push(...e.rejected);
      head.modules.push(...e.modules);
    }
  }
  return whole;
}

export class MessageJoiner {
  private readonly maxFragments: number;
  private readonly maxOpen: number;
  private readonly maxBytes: number;
  private readonly pending = new Map<
    string,
    { type: OurPacketName; bodies: Record<string, unknown>[]; bytes: number }
  >();
  private held = 0;

  constructor(options: JoinerOptions = {}) {
    this.maxFragments = options.maxFragments ?? 256;
    this.maxOpen = options.maxOpen ?? 16;
    this.maxBytes = options.maxBytes ?? MAX_SPLIT_BYTES;
  }

  /** Messages begun and not yet whole. */
  get open(): number {
    return this.pending.size;
  }

  /** Wire bytes of the messages begun and not yet whole. */
  get heldBytes(): number {
    return this.held;
  }

  /**
   * Takes one decoded packet, `size` its length on the wire (what counts against
   * maxBytes). Returns the whole message when this packet ends one (at once for a packet
   * that is not split), else null. Throws BAD_FRAGMENTS.
   */
  push(packet: Packet, size = 0): Message | null {
    if (!('requestId' in packet)) return packet;
    const key = `${packet.type}:${packet.requestId}`;
    let entry = this.pending.get(key);
    if (entry === undefined && !packet.more) return this.finish(packet.type, packet, [packet.body]);
    if (entry === undefined) {
      if (this.pending.size >= this.maxOpen) {
        badFragments(`more than ${this.maxOpen} split messages are half received at once`);
      }
      entry = { type: packet.type, bodies: [], bytes: 0 };
      this.pending.set(key, entry);
    }
    entry.bodies.push(packet.body as Record<string, unknown>);
    entry.bytes += size;
    this.held += size;
    if (entry.bodies.length > this.maxFragments) {
      badFragments(`${packet.type} ${packet.requestId} is split into more than ${this.maxFragments} packets`);
    }
    // The last packet of a message counts too: it is held with the rest until the whole is made.
    if (this.held > this.maxBytes) {
      badFragments(`more than ${this.maxBytes} bytes of split messages are half received at once`);
    }
    if (packet.more) return null;
    this.pending.delete(key);
    this.held -= entry.bytes;
    return this.finish(packet.type, packet, entry.bodies);
  }

  private finish(type: OurPacketName, packet: Packet & { requestId: number }, bodies: unknown[]): Message {
    const body =
      bodies.length === 1
        ? (bodies[0] as Record<string, unknown>)
        : mergeBodies(type, bodies as Record<string, unknown>[]);
    if (type === 'COMPLETE') {
      const completions = foldCompletions(body.completions as (WireCompletion | WireCompletionPart)[]);
      return { type, requestId: packet.requestId, more: false, body: { completions } };
    }
    return { ...packet, more: false, body } as Message;
  }
}
