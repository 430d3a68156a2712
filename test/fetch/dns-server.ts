/** A tiny authoritative DNS server on loopback (UDP, A and AAAA only), so resolver tests send no query off the machine. */
import { createSocket } from 'node:dgram';

export interface DnsRecords {
  a?: ReadonlyArray<readonly [address: string, ttlSeconds: number]>;
  aaaa?: ReadonlyArray<readonly [address: string, ttlSeconds: number]>;
}

export interface TestDnsServer {
  /** "127.0.0.1:port", as Resolver.setServers takes it. */
  readonly server: string;
  /** "name type" of every question received, e.g. "www.site.test A". */
  readonly questions: string[];
  close(): Promise<void>;
}

const TYPE_A = 1;
const TYPE_AAAA = 28;
const RCODE_NXDOMAIN = 3;

function encodeIpv6(address: string): Buffer {
  const [head = '', tail] = address.split('::');
  const before = head === '' ? [] : head.split(':');
  const after = tail === undefined || tail === '' ? [] : tail.split(':');
  const groups = [...before, ...Array<string>(8 - before.length - after.length).fill('0'), ...after];
  const bytes = Buffer.alloc(16);
  for (const [i, group] of groups.entries()) bytes.writeUInt16BE(Number.parseInt(group, 16), i * 2);
  return bytes;
}

function encodeAddress(address: string, type: number): Buffer {
  return type === TYPE_A ? Buffer.from(address.split('.').map(Number)) : encodeIpv6(address);
}

/** Reads the one question of a query: its name (lowercase), type, and where the question section ends. */
function readQuestion(query: Buffer): { name: string; type: number; end: number } {
  const labels: string[] = [];
  let offset = 12;
  for (let length = query[offset] ?? 0; length > 0; length = query[offset] ?? 0) {
    labels.push(query.toString('latin1', offset + 1, offset + 1 + length).toLowerCase());
    offset += 1 + length;
  }
  const type = query.readUInt16BE(offset + 1);
  return { name: labels.join('.'), type, end: offset + 5 };
}

function answer(query: Buffer, records: ReadonlyMap<string, DnsRecords>): { reply: Buffer; asked: string } {
  const { name, type, end } = readQuestion(query);
  const known = records.get(name);
  const list =
    known === undefined ? [] : ((type === TYPE_A ? known.a : type === TYPE_AAAA ? known.aaaa : []) ?? []);
  const header = Buffer.alloc(12);
  header.writeUInt16BE(query.readUInt16BE(0), 0);
  // Response, recursion desired copied from the query, recursion available, and NXDOMAIN for unknown names.
  header.writeUInt16BE(
    0x8080 | (query.readUInt16BE(2) & 0x0100) | (known === undefined ? RCODE_NXDOMAIN : 0),
    2,
  );
  header.writeUInt16BE(1, 4);
  header.writeUInt16BE(list.length, 6);
  const answers = list.map(([address, ttl]) => {
    const data = encodeAddress(address, type);
    const fixed = Buffer.alloc(12);
    fixed.writeUInt16BE(0xc00c, 0); // the name: a pointer to the question's
    fixed.writeUInt16BE(type, 2);
    fixed.writeUInt16BE(1, 4); // class IN
    fixed.writeUInt32BE(ttl, 6);
    fixed.writeUInt16BE(data.length, 10);
    return Buffer.concat([fixed, data]);
  });
  const asked = `${name} ${type === TYPE_A ? 'A' : type === TYPE_AAAA ? 'AAAA' : type}`;
  return { reply: Buffer.concat([header, query.subarray(12, end), ...answers]), asked };
}

export async function startDnsServer(records: ReadonlyMap<string, DnsRecords>): Promise<TestDnsServer> {
  const socket = createSocket('udp4');
  const questions: string[] = [];
  socket.on('message', (query, from) => {
    const { reply, asked } = answer(query, records);
    questions.push(asked);
    socket.send(reply, from.port, from.address);
  });
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve));
  return {
    server: `127.0.0.1:${socket.address().port}`,
    questions,
    close: () => new Promise<void>((resolve) => socket.close(() => resolve())),
  };
}
