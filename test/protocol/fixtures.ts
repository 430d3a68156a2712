/**
 * One byte fixture per packet, written field by field as docs/protocol.md describes it, with
 * the packet object it decodes to. The lengths are written out by hand (not computed), so a
 * fixture checks the codec against the document rather than against itself.
 */
import type { OriginalTarget, Packet } from '../../src/protocol/index.js';
import { bytes } from '../helpers/bytes.js';

export interface Fixture {
  name: string;
  packet: Packet;
  bytes: Buffer;
  /** Who sends it. */
  from: 'client' | 'server';
  /** A DEQUEUE reply: the decoder must be told to expect it. */
  dequeueReply?: true;
}

export { bytes };

const NUL = [0x00];

const EXAMPLE: OriginalTarget = {
  addr: '93.184.216.34',
  port: 80,
  host: 'example.com',
  path: '/docs/a.html?x=1',
};

// sha256 of MODULE_SOURCE, checked by a test
export const MODULE_SOURCE =
  'export default { name: "shout", onPage: (p) => ({ shout: p.url.toUpperCase() }) };\n';
const MODULE_SHA = 'b971d8d42ed5c6b862afbeb4de4283b2665e26ed44e1fb278dbc54f72e11509d';
// A cookie as the jar keeps it: opaque text to the protocol (tough-cookie's JSON).
const COOKIE_ABC = '{"key":"sid","value":"abc","domain":"example.com"}';
const COOKIE_XYZ = '{"key":"sid","value":"xyz","domain":"example.com"}';

export const ORIGINAL_FIXTURES: Fixture[] = [
  {
    name: 'DEQUEUE',
    from: 'client',
    packet: { type: 'DEQUEUE' },
    bytes: bytes(
      [0x00, 0x03], // length 3
      [0x01], // type DEQUEUE
    ),
  },
  {
    name: 'ENQUEUE',
    from: 'client',
    packet: { type: 'ENQUEUE', target: EXAMPLE },
    bytes: bytes(
      [0x00, 0x26], // length 38 = 11 + strlen("example.com") 11 + strlen("/docs/a.html?x=1") 16
      [0x02], // type ENQUEUE
      [93, 184, 216, 34], // addr 93.184.216.34
      [0x00, 0x50], // port 80: http
      'example.com',
      NUL, // host
      '/docs/a.html?x=1',
      NUL, // path and query
    ),
  },
  {
    name: 'STOREURL',
    from: 'client',
    packet: { type: 'STOREURL', target: { addr: '0.0.0.0', port: 443, host: 'www.example.org', path: '/' } },
    bytes: bytes(
      [0x00, 0x1b], // length 27 = 11 + 15 + 1
      [0x03], // type STOREURL
      [0, 0, 0, 0], // addr 0.0.0.0: not resolved
      [0x01, 0xbb], // port 443: https
      'www.example.org',
      NUL,
      '/',
      NUL,
    ),
  },
  {
    name: 'SHOWDATA',
    from: 'client',
    packet: { type: 'SHOWDATA' },
    bytes: bytes([0x00, 0x03], [0x04]), // length 3, type SHOWDATA
  },
  {
    name: 'QUIT',
    from: 'client',
    packet: { type: 'QUIT' },
    bytes: bytes([0x00, 0x03], [0x05]), // length 3, type QUIT
  },
  {
    name: 'MODSTAT',
    from: 'client',
    packet: { type: 'MODSTAT' },
    bytes: bytes([0x00, 0x03], [0x06]), // length 3, type MODSTAT
  },
  {
    name: 'LOGDATA',
    from: 'client',
    packet: { type: 'LOGDATA', file: 'crawl.log' },
    bytes: bytes(
      [0x00, 0x0d], // length 13 = 4 + strlen("crawl.log") 9
      [0x07], // type LOGDATA
      'crawl.log',
      NUL,
    ),
  },
  {
    name: 'READDATA',
    from: 'client',
    packet: { type: 'READDATA', file: 'old.log' },
    bytes: bytes(
      [0x00, 0x0b], // length 11 = 4 + 7
      [0x08], // type READDATA
      'old.log',
      NUL,
    ),
  },
  {
    name: 'NEWMOD',
    from: 'client',
    packet: { type: 'NEWMOD', name: 'headings' },
    bytes: bytes(
      [0x00, 0x0c], // length 12 = 4 + 8
      [0x09], // type NEWMOD
      'headings',
      NUL,
    ),
  },
  {
    name: 'MODINFO',
    from: 'client',
    packet: {
      type: 'MODINFO',
      addr: '93.184.216.34',
      port: 80,
      module: 'server',
      info: '{"software":"nginx"}',
    },
    bytes: bytes(
      [0x00, 0x25], // length 37 = 11 + strlen("server") 6 + strlen(info) 20
      [0x0a], // type MODINFO
      [93, 184, 216, 34], // addr
      [0x00, 0x50], // port 80
      'server',
      NUL, // module name
      '{"software":"nginx"}',
      NUL, // info text
    ),
  },
  {
    name: 'DEQUEUE reply',
    from: 'server',
    dequeueReply: true,
    packet: {
      type: 'DEQUEUE_REPLY',
      target: { addr: '93.184.216.34', port: 80, host: 'example.com', path: '/docs/' },
    },
    bytes: bytes(
      [0x00, 0x1b], // length 27 = 10 + 11 + 6; NO type byte
      [93, 184, 216, 34], // addr
      [0x00, 0x50], // port 80
      'example.com',
      NUL,
      '/docs/',
      NUL,
    ),
  },
  {
    name: 'DEQUEUE reply, empty',
    from: 'server',
    dequeueReply: true,
    packet: { type: 'DEQUEUE_REPLY', target: null },
    bytes: bytes([0x00, 0x00]), // nothing queued: the two bytes 00 00
  },
];

export const OUR_FIXTURES: Fixture[] = [
  {
    name: 'AUTH',
    from: 'client',
    packet: { type: 'AUTH', requestId: 0, more: false, body: { token: 's3cret' } },
    bytes: bytes(
      [0x00, 0x1a], // length 26 = 8 + 18
      [0x10], // type 16 AUTH
      [0, 0, 0, 0], // request id 0: no reply wanted
      [0x00], // flags
      '{"token":"s3cret"}',
    ),
  },
  {
    name: 'HELLO',
    from: 'client',
    packet: {
      type: 'HELLO',
      requestId: 1,
      more: false,
      body: { name: 'bunny-a', protocol: 1, version: '0.1.0' },
    },
    bytes: bytes(
      [0x00, 0x39], // length 57 = 8 + 49
      [0x11], // type 17 HELLO
      [0, 0, 0, 1], // request id 1
      [0x00], // flags
      '{"name":"bunny-a","protocol":1,"version":"0.1.0"}',
    ),
  },
  {
    name: 'WELCOME',
    from: 'server',
    packet: {
      type: 'WELCOME',
      requestId: 1,
      more: false,
      body: { crawlerId: 'b1', protocol: 1, leaseMs: 60000, settings: {} },
    },
    bytes: bytes(
      [0x00, 0x45], // length 69 = 8 + 61
      [0x12], // type 18 WELCOME
      [0, 0, 0, 1], // answers request 1
      [0x00],
      '{"crawlerId":"b1","protocol":1,"leaseMs":60000,"settings":{}}',
    ),
  },
  {
    name: 'LEASE',
    from: 'client',
    packet: { type: 'LEASE', requestId: 2, more: false, body: { n: 8, waitMs: 30000 } },
    bytes: bytes(
      [0x00, 0x1e], // length 30 = 8 + 22
      [0x13], // type 19 LEASE
      [0, 0, 0, 2], // request id 2
      [0x00],
      '{"n":8,"waitMs":30000}',
    ),
  },
  {
    name: 'LEASES',
    from: 'server',
    packet: {
      type: 'LEASES',
      requestId: 2,
      more: false,
      body: {
        leases: [
          {
            id: 'L17',
            url: 'http://[2001:db8::1]:8080/a',
            host: '[2001:db8::1]:8080',
            depth: 1,
            via: 'http://[2001:db8::1]:8080/',
            redirects: 0,
            kind: 'page',
            attempt: 1,
            expiresAt: 1767225600000,
          },
        ],
        ended: null,
        nextReadyAt: null,
      },
    },
    bytes: bytes(
      [0x00, 0xf0], // length 240 = 8 + 232
      [0x14], // type 20 LEASES
      [0, 0, 0, 2], // answers request 2
      [0x00], // flags: the last (only) packet of the reply
      '{"leases":[{"id":"L17","url":"http://[2001:db8::1]:8080/a","host":"[2001:db8::1]:8080","depth":1,',
      '"via":"http://[2001:db8::1]:8080/","redirects":0,"kind":"page","attempt":1,"expiresAt":1767225600000}],',
      '"ended":null,"nextReadyAt":null}',
    ),
  },
  {
    name: 'COMPLETE',
    from: 'client',
    packet: {
      type: 'COMPLETE',
      requestId: 3,
      more: false,
      body: {
        completions: [
          {
            lease: 'L17',
            outcome: { kind: 'done' },
            report: { fetchMs: 42, address: '2001:db8::1' },
            page: { url: 'http://[2001:db8::1]:8080/a', status: 200 },
            outlinks: [{ url: 'http://[2001:db8::1]:8080/b', depth: 2, via: 'http://[2001:db8::1]:8080/a' }],
            rejected: [
              { url: 'http://other.test/', depth: 2, via: 'http://[2001:db8::1]:8080/a', reason: 'scope' },
            ],
            modules: [{ module: 'meta', record: { lang: 'en' } }],
          },
        ],
      },
    },
    bytes: bytes(
      [0x01, 0xac], // length 428 = 8 + 420
      [0x15], // type 21 COMPLETE
      [0, 0, 0, 3], // request id 3
      [0x00],
      '{"completions":[{"lease":"L17","outcome":{"kind":"done"},"report":{"fetchMs":42,"address":"2001:db8::1"},',
      '"page":{"url":"http://[2001:db8::1]:8080/a","status":200},',
      '"outlinks":[{"url":"http://[2001:db8::1]:8080/b","depth":2,"via":"http://[2001:db8::1]:8080/a"}],',
      '"rejected":[{"url":"http://other.test/","depth":2,"via":"http://[2001:db8::1]:8080/a","reason":"scope"}],',
      '"modules":[{"module":"meta","record":{"lang":"en"}}]}]}',
    ),
  },
  {
    name: 'COMPLETED',
    from: 'server',
    packet: {
      type: 'COMPLETED',
      requestId: 3,
      more: false,
      body: {
        stale: ['L9'],
        records: [
          {
            id: 'r5',
            url: 'http://other.test/',
            depth: 2,
            via: 'http://[2001:db8::1]:8080/a',
            reason: 'scope',
          },
        ],
        added: 1,
      },
    },
    bytes: bytes(
      [0x00, 0x94], // length 148 = 8 + 140
      [0x16], // type 22 COMPLETED
      [0, 0, 0, 3], // answers request 3
      [0x00],
      '{"stale":["L9"],"records":[{"id":"r5","url":"http://other.test/","depth":2,',
      '"via":"http://[2001:db8::1]:8080/a","reason":"scope"}],"added":1}',
    ),
  },
  {
    name: 'RELEASE',
    from: 'client',
    packet: {
      type: 'RELEASE',
      requestId: 0,
      more: false,
      body: { releases: [{ lease: 'L17', report: { fetchMs: 42, crawlDelayMs: 2000 } }] },
    },
    bytes: bytes(
      [0x00, 0x52], // length 82 = 8 + 74
      [0x17], // type 23 RELEASE
      [0, 0, 0, 0], // request id 0: no reply wanted
      [0x00],
      '{"releases":[{"lease":"L17","report":{"fetchMs":42,"crawlDelayMs":2000}}]}',
    ),
  },
  {
    name: 'EXTEND',
    from: 'client',
    packet: { type: 'EXTEND', requestId: 4, more: false, body: { leases: ['L17', 'L18'] } },
    bytes: bytes(
      [0x00, 0x20], // length 32 = 8 + 24
      [0x18], // type 24 EXTEND
      [0, 0, 0, 4],
      [0x00],
      '{"leases":["L17","L18"]}',
    ),
  },
  {
    name: 'EXTENDED',
    from: 'server',
    packet: {
      type: 'EXTENDED',
      requestId: 4,
      more: false,
      body: { leases: [{ id: 'L17', expiresAt: 1767225660000 }], stale: ['L18'] },
    },
    bytes: bytes(
      [0x00, 0x4b], // length 75 = 8 + 67
      [0x19], // type 25 EXTENDED
      [0, 0, 0, 4],
      [0x00],
      '{"leases":[{"id":"L17","expiresAt":1767225660000}],"stale":["L18"]}',
    ),
  },
  {
    name: 'ADD',
    from: 'client',
    packet: {
      type: 'ADD',
      requestId: 5,
      more: false,
      body: { links: [{ url: 'https://example.com/', depth: 0, via: null }], rejected: [] },
    },
    bytes: bytes(
      [0x00, 0x55], // length 85 = 8 + 77
      [0x1a], // type 26 ADD
      [0, 0, 0, 5],
      [0x00],
      '{"links":[{"url":"https://example.com/","depth":0,"via":null}],"rejected":[]}',
    ),
  },
  {
    name: 'ADDED',
    from: 'server',
    packet: { type: 'ADDED', requestId: 5, more: false, body: { added: 1, records: [] } },
    bytes: bytes(
      [0x00, 0x20], // length 32 = 8 + 24
      [0x1b], // type 27 ADDED
      [0, 0, 0, 5],
      [0x00],
      '{"added":1,"records":[]}',
    ),
  },
  {
    name: 'ACK',
    from: 'client',
    packet: { type: 'ACK', requestId: 0, more: false, body: { ids: ['r5'] } },
    bytes: bytes(
      [0x00, 0x16], // length 22 = 8 + 14
      [0x1c], // type 28 ACK
      [0, 0, 0, 0],
      [0x00],
      '{"ids":["r5"]}',
    ),
  },
  {
    // A server's bunny acknowledges a captured requisite's record with its line, which the server writes.
    name: 'ACK with lines',
    from: 'client',
    packet: {
      type: 'ACK',
      requestId: 7,
      more: false,
      body: {
        ids: ['r6'],
        lines: [
          {
            url: 'https://example.com/s.css',
            status: 200,
            contentType: 'text/css',
            bytes: 120,
            depth: 1,
            via: 'https://example.com/',
            requisite: true,
            captured: true,
          },
        ],
      },
    },
    bytes: bytes(
      [0x00, 0xbe], // length 190 = 8 + 182
      [0x1c], // type 28 ACK
      [0, 0, 0, 7], // request id 7: answered OK once the lines are written
      [0x00],
      '{"ids":["r6"],"lines":[{"url":"https://example.com/s.css","status":200,"contentType":"text/css","bytes":120,"depth":1,"via":"https://example.com/","requisite":true,"captured":true}]}',
    ),
  },
  {
    name: 'CLAIMSITE',
    from: 'client',
    packet: {
      type: 'CLAIMSITE',
      requestId: 6,
      more: false,
      body: { origin: 'https://example.com', address: '93.184.216.34' },
    },
    bytes: bytes(
      [0x00, 0x42], // length 66 = 8 + 58
      [0x1d], // type 29 CLAIMSITE
      [0, 0, 0, 6],
      [0x00],
      '{"origin":"https://example.com","address":"93.184.216.34"}',
    ),
  },
  {
    name: 'CLAIMED',
    from: 'server',
    packet: { type: 'CLAIMED', requestId: 6, more: false, body: { claimed: true } },
    bytes: bytes(
      [0x00, 0x18], // length 24 = 8 + 16
      [0x1e], // type 30 CLAIMED
      [0, 0, 0, 6],
      [0x00],
      '{"claimed":true}',
    ),
  },
  {
    name: 'RECORDSITE',
    from: 'client',
    packet: {
      type: 'RECORDSITE',
      requestId: 7,
      more: false,
      body: {
        origin: 'https://example.com',
        address: '93.184.216.34',
        firstSeen: 1767225600000,
        info: { server: { software: 'nginx' } },
      },
    },
    bytes: bytes(
      [0x00, 0x83], // length 131 = 8 + 123
      [0x1f], // type 31 RECORDSITE
      [0, 0, 0, 7], // request id 7: answer OK once it is stored
      [0x00],
      '{"origin":"https://example.com","address":"93.184.216.34","firstSeen":1767225600000,',
      '"info":{"server":{"software":"nginx"}}}',
    ),
  },
  {
    name: 'STATS',
    from: 'client',
    packet: { type: 'STATS', requestId: 8, more: false, body: {} },
    bytes: bytes(
      [0x00, 0x0a], // length 10 = 8 + 2
      [0x20], // type 32 STATS
      [0, 0, 0, 8],
      [0x00],
      '{}',
    ),
  },
  {
    name: 'STATSREPLY',
    from: 'server',
    packet: {
      type: 'STATSREPLY',
      requestId: 8,
      more: false,
      body: { queued: 120, inFlight: 8, done: 40, failed: 2, rejected: 15, hosts: 3, bunnies: 2 },
    },
    bytes: bytes(
      [0x00, 0x5c], // length 92 = 8 + 84
      [0x21], // type 33 STATSREPLY
      [0, 0, 0, 8],
      [0x00],
      '{"queued":120,"inFlight":8,"done":40,"failed":2,"rejected":15,"hosts":3,"bunnies":2}',
    ),
  },
  {
    name: 'MODULE',
    from: 'server',
    packet: {
      type: 'MODULE',
      requestId: 0,
      more: false,
      body: { name: 'shout', sha256: MODULE_SHA, source: MODULE_SOURCE },
    },
    bytes: bytes(
      [0x00, 0xc6], // length 198 = 8 + 190
      [0x22], // type 34 MODULE
      [0, 0, 0, 0], // a push: request id 0
      [0x00],
      `{"name":"shout","sha256":"${MODULE_SHA}",`,
      '"source":"export default { name: \\"shout\\", onPage: (p) => ({ shout: p.url.toUpperCase() }) };\\n"}',
    ),
  },
  {
    name: 'OK',
    from: 'server',
    packet: { type: 'OK', requestId: 7, more: false, body: {} },
    bytes: bytes(
      [0x00, 0x0a], // length 10
      [0x23], // type 35 OK
      [0, 0, 0, 7], // answers RECORDSITE 7
      [0x00],
      '{}',
    ),
  },
  {
    name: 'LEAVE',
    from: 'client',
    packet: { type: 'LEAVE', requestId: 9, more: false, body: {} },
    bytes: bytes(
      [0x00, 0x0a], // length 10
      [0x25], // type 37 LEAVE
      [0, 0, 0, 9], // request id 9
      [0x00],
      '{}',
    ),
  },
  {
    name: 'CRAWL',
    from: 'client',
    packet: { type: 'CRAWL', requestId: 0, more: false, body: { crawl: 'shop' } },
    bytes: bytes(
      [0x00, 0x18], // length 24 = 8 + 16
      [0x26], // type 38 CRAWL
      [0, 0, 0, 0], // no reply wanted
      [0x00],
      '{"crawl":"shop"}',
    ),
  },
  {
    name: 'COOKIES',
    from: 'client',
    packet: { type: 'COOKIES', requestId: 10, more: false, body: {} },
    bytes: bytes(
      [0x00, 0x0a], // length 10
      [0x27], // type 39 COOKIES
      [0, 0, 0, 10], // request id 10
      [0x00],
      '{}',
    ),
  },
  {
    name: 'COOKIEJAR',
    from: 'server',
    packet: {
      type: 'COOKIEJAR',
      requestId: 10,
      more: false,
      body: { cookies: [{ key: 'example.com;/;sid', value: COOKIE_ABC }] },
    },
    bytes: bytes(
      [0x00, 0x7a], // length 122 = 8 + 114
      [0x28], // type 40 COOKIEJAR
      [0, 0, 0, 10], // answers COOKIES 10
      [0x00],
      '{"cookies":[{"key":"example.com;/;sid","value":"{\\"key\\":\\"sid\\",\\"value\\":\\"abc\\",\\"domain\\":\\"example.com\\"}"}]}',
    ),
  },
  {
    name: 'SAVECOOKIES',
    from: 'client',
    packet: {
      type: 'SAVECOOKIES',
      requestId: 11,
      more: false,
      body: {
        cookies: [
          { key: 'example.com;/;sid', value: COOKIE_XYZ },
          { key: 'example.com;/;old', value: null },
        ],
      },
    },
    bytes: bytes(
      [0x00, 0xa3], // length 163 = 8 + 155
      [0x29], // type 41 SAVECOOKIES
      [0, 0, 0, 11], // request id 11: answered OK once kept
      [0x00],
      '{"cookies":[{"key":"example.com;/;sid","value":"{\\"key\\":\\"sid\\",\\"value\\":\\"xyz\\",\\"domain\\":\\"example.com\\"}"},',
      '{"key":"example.com;/;old","value":null}]}',
    ),
  },
  {
    name: 'ROBOTS',
    from: 'client',
    packet: { type: 'ROBOTS', requestId: 12, more: false, body: { origin: 'http://example.com' } },
    bytes: bytes(
      [0x00, 0x27], // length 39 = 8 + 31
      [0x2a], // type 42 ROBOTS
      [0, 0, 0, 12], // request id 12: answered ROBOTSREPLY
      [0x00],
      '{"origin":"http://example.com"}',
    ),
  },
  {
    name: 'ROBOTSREPLY',
    from: 'server',
    packet: {
      type: 'ROBOTSREPLY',
      requestId: 12,
      more: false,
      body: {
        answer: 'known',
        validForMs: 86_400_000,
        state: 'parsed',
        status: 200,
        text: ['User-agent: *\nDisallow: /private/\n'],
      },
    },
    bytes: bytes(
      [0x00, 0x7e], // length 126 = 8 + 118
      [0x2b], // type 43 ROBOTSREPLY
      [0, 0, 0, 12], // answers ROBOTS 12
      [0x00],
      '{"answer":"known","validForMs":86400000,"state":"parsed","status":200,',
      '"text":["User-agent: *\\nDisallow: /private/\\n"]}',
    ),
  },
  {
    name: 'SAVEROBOTS',
    from: 'client',
    packet: {
      type: 'SAVEROBOTS',
      requestId: 13,
      more: false,
      body: {
        origin: 'http://example.com',
        read: true,
        state: 'unavailable',
        status: null,
        failure: { error: 'refused', message: 'connection refused', connectFailed: true },
        text: [],
      },
    },
    bytes: bytes(
      [0x00, 0xb3], // length 179 = 8 + 171
      [0x2c], // type 44 SAVEROBOTS
      [0, 0, 0, 13], // request id 13: answered ROBOTSREPLY
      [0x00],
      '{"origin":"http://example.com","read":true,"state":"unavailable","status":null,',
      '"failure":{"error":"refused","message":"connection refused","connectFailed":true},"text":[]}',
    ),
  },
  {
    name: 'SEEDS',
    from: 'client',
    packet: {
      type: 'SEEDS',
      requestId: 14,
      more: false,
      body: { origins: ['http://intranet.example'], addresses: ['10.0.0.5'] },
    },
    bytes: bytes(
      [0x00, 0x48], // length 72 = 8 + 64
      [0x2d], // type 45 SEEDS
      [0, 0, 0, 14], // request id 14: answered SEEDLIST
      [0x00],
      '{"origins":["http://intranet.example"],"addresses":["10.0.0.5"]}',
    ),
  },
  {
    name: 'SEEDLIST',
    from: 'server',
    packet: {
      type: 'SEEDLIST',
      requestId: 14,
      more: false,
      body: {
        origins: ['http://intranet.example', 'http://127.0.0.2:8080'],
        addresses: ['10.0.0.5', '127.0.0.2'],
      },
    },
    bytes: bytes(
      [0x00, 0x6c], // length 108 = 8 + 100
      [0x2e], // type 46 SEEDLIST
      [0, 0, 0, 14], // answers SEEDS 14
      [0x00],
      '{"origins":["http://intranet.example","http://127.0.0.2:8080"],"addresses":["10.0.0.5","127.0.0.2"]}',
    ),
  },
  {
    name: 'MODCOUNTS',
    from: 'client',
    packet: {
      type: 'MODCOUNTS',
      requestId: 15,
      more: false,
      body: { modules: [{ name: 'wordcount', calls: 40, errors: 1, timeouts: 0, skipped: 2, ms: 12.5 }] },
    },
    bytes: bytes(
      [0x00, 0x63], // length 99 = 8 + 91
      [0x2f], // type 47 MODCOUNTS
      [0, 0, 0, 15], // request id 15: answered OK
      [0x00],
      '{"modules":[{"name":"wordcount","calls":40,"errors":1,"timeouts":0,"skipped":2,"ms":12.5}]}',
    ),
  },
  {
    name: 'ERROR',
    from: 'server',
    packet: {
      type: 'ERROR',
      requestId: 0,
      more: false,
      body: { code: 201, message: 'the token is wrong: use the one in DATA/token or --token' },
    },
    bytes: bytes(
      [0x00, 0x59], // length 89 = 8 + 81
      [0x24], // type 36 ERROR
      [0, 0, 0, 0], // not tied to a request
      [0x00],
      '{"code":201,"message":"the token is wrong: use the one in DATA/token or --token"}',
    ),
  },
];

export const FIXTURES: Fixture[] = [...ORIGINAL_FIXTURES, ...OUR_FIXTURES];
