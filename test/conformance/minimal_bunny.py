#!/usr/bin/env python3
"""A minimal cobweb bunny in Python's standard library, written from docs/protocol.md.

It is the second-language client of the conformance run (npm run conformance): it speaks
our packets, one request at a time, fetches one URL at a time, and runs no module (its
HELLO says so). Usage:

    minimal_bunny.py --server HOST:PORT [--token TOKEN] [--crawl NAME] [--data DIR]

It stops when LEASES says the crawl is over. --data is accepted and unused: the server
writes pages.jsonl.
"""

import argparse
import datetime
import http.client
import json
import posixpath
import re
import socket
import struct
import sys
import time
import urllib.parse
from html.parser import HTMLParser

MORE = 0x01
TYPES = {
    'AUTH': 16, 'HELLO': 17, 'WELCOME': 18, 'LEASE': 19, 'LEASES': 20, 'COMPLETE': 21,
    'COMPLETED': 22, 'RELEASE': 23, 'EXTEND': 24, 'EXTENDED': 25, 'ADD': 26, 'ADDED': 27,
    'ACK': 28, 'CLAIMSITE': 29, 'CLAIMED': 30, 'STATS': 32, 'STATSREPLY': 33, 'MODULE': 34,
    'OK': 35, 'ERROR': 36, 'LEAVE': 37, 'ROBOTS': 42, 'ROBOTSREPLY': 43, 'SAVEROBOTS': 44,
}
NAMES = {v: k for k, v in TYPES.items()}
MAX_PACKET = 65535
# Room for the 8-byte header and the JSON around a slice of a list.
BODY_BUDGET = 60000
TRANSIENT_STATUSES = {408, 429, 500, 502, 503, 504}
TRANSIENT_ERRORS = {'timeout', 'reset', 'network', 'refused'}
MAX_RETRY_AFTER_MS = 3600000
HTML_TYPES = {'text/html', 'application/xhtml+xml'}
USER_AGENT = 'minimal-bunny/1 (cobweb conformance)'


# --------------------------------------------------------------------------------------
# Packets

class Connection:
    def __init__(self, host, port):
        self.sock = socket.create_connection((host, port))
        self.buf = b''
        self.next_id = 1

    def send(self, name, request_id, body, flags=0):
        data = json.dumps(body, separators=(',', ':'), ensure_ascii=False).encode('utf-8')
        length = 8 + len(data)
        if length > MAX_PACKET:
            raise ValueError('%s of %d bytes does not fit a packet' % (name, length))
        self.sock.sendall(struct.pack('>HBIB', length, TYPES[name], request_id, flags) + data)

    def read_packet(self):
        while True:
            if len(self.buf) >= 2:
                (length,) = struct.unpack('>H', self.buf[:2])
                if len(self.buf) >= length:
                    packet, self.buf = self.buf[:length], self.buf[length:]
                    _, ptype, request_id, flags = struct.unpack('>HBIB', packet[:8])
                    return NAMES.get(ptype, str(ptype)), request_id, flags, json.loads(packet[8:])
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError('the server closed the connection')
            self.buf += chunk

    def read_reply(self, request_id):
        """The reply to one request: a split one joined (lists concatenated, `added` summed)."""
        joined = None
        while True:
            name, rid, flags, body = self.read_packet()
            if name == 'MODULE' or rid != request_id:
                continue  # a push; this bunny said it loads no module
            if name == 'ERROR':
                raise RuntimeError('ERROR %s: %s' % (body.get('code'), body.get('message')))
            if joined is None:
                joined = body
            else:
                for key, value in body.items():
                    if isinstance(value, list) and isinstance(joined.get(key), list):
                        joined[key] = joined[key] + value
                    elif key == 'added':
                        joined[key] = joined.get(key, 0) + value
                    else:
                        joined[key] = value
            if not flags & MORE:
                return name, joined

    def request(self, name, body):
        request_id = self.next_id
        self.next_id += 1
        self.send(name, request_id, body)
        return self.read_reply(request_id)[1]

    def request_split(self, name, bodies):
        """One message sent as several packets (MORE on all but the last), answered once."""
        request_id = self.next_id
        self.next_id += 1
        for i, body in enumerate(bodies):
            self.send(name, request_id, body, MORE if i < len(bodies) - 1 else 0)
        return self.read_reply(request_id)[1]


def size(value):
    return len(json.dumps(value, separators=(',', ':'), ensure_ascii=False).encode('utf-8'))


def complete_bodies(completions):
    """COMPLETE bodies that each fit a packet: long lists go on in continuation entries."""
    bodies, current = [], []

    def room(entry):
        return size({'completions': current + [entry]}) <= BODY_BUDGET

    for c in completions:
        head = dict(c, outlinks=[], rejected=[])
        lists = [('outlinks', c['outlinks']), ('rejected', c['rejected'])]
        if not room(head):
            bodies.append({'completions': current})
            current = []
        entry = head
        for key, items in lists:
            for item in items:
                entry[key].append(item)
                if not room(entry):
                    entry[key].pop()
                    current.append(entry)
                    bodies.append({'completions': current})
                    current = []
                    entry = {'lease': c['lease'], 'outlinks': [], 'rejected': [], 'modules': []}
                    entry[key].append(item)
        current.append(entry)
    if current or not bodies:
        bodies.append({'completions': current})
    return bodies


# --------------------------------------------------------------------------------------
# URLs: the canonical form and the filter (docs/protocol.md, "Links")

UNRESERVED = set('ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~')
# What the WHATWG URL Standard leaves as it is in a path, and in a query of an http(s) URL.
PATH_SAFE = "!$%&'()*+,/:;=@[]^|-._~"
QUERY_SAFE = "!$%&()*+,/:;=?@[]^`{|}-._~\\"


def remove_dot_segments(path):
    out = []
    segments = path.split('/')
    for i, s in enumerate(segments[1:], 1):
        last = i == len(segments) - 1
        if s in ('.', '%2e', '%2E'):
            if last:
                out.append('')
        elif s.lower() in ('..', '.%2e', '%2e.', '%2e%2e'):
            if out:
                out.pop()
            if last:
                out.append('')
        else:
            out.append(s)
    return '/' + '/'.join(out)


def fix_escapes(text):
    def one(m):
        ch = chr(int(m.group(1), 16))
        return ch if ch in UNRESERVED else '%' + m.group(1).upper()
    return re.sub(r'%([0-9A-Fa-f]{2})', one, text)


def canonical(href, base):
    """(url, None), or (None, 'too-long'), or (None, None) for a link that is dropped."""
    href = href.strip(''.join(chr(c) for c in range(0x21)))
    href = re.sub(r'[\t\n\r]', '', href)
    try:
        joined = urllib.parse.urljoin(base, href.replace('\\', '/'))
        parts = urllib.parse.urlsplit(joined)
        port = parts.port
        host = parts.hostname
    except ValueError:
        return None, None
    scheme = parts.scheme.lower()
    if scheme not in ('http', 'https') or not host:
        return None, None
    try:
        host = host.encode('idna').decode('ascii').lower()
    except UnicodeError:
        return None, None
    if ':' in host:
        host = '[%s]' % host
    netloc = host if port in (None, 80 if scheme == 'http' else 443) else '%s:%d' % (host, port)
    path = remove_dot_segments(urllib.parse.quote(parts.path or '/', safe=PATH_SAFE))
    query = urllib.parse.quote(parts.query, safe=QUERY_SAFE)
    url = '%s://%s%s' % (scheme, netloc, fix_escapes(path))
    if query:
        url += '?' + fix_escapes(query)
    if len(url) > 2083:
        return None, 'too-long'
    return url, None


def hostname_of(url):
    return urllib.parse.urlsplit(url).hostname or ''


def origin_of(url):
    p = urllib.parse.urlsplit(url)
    return '%s://%s' % (p.scheme, p.netloc)


class Rules:
    def __init__(self, s):
        self.scope = s.get('scope', 'host')
        self.seed_scopes = {self.scope_key(hostname_of(u)) for u in s.get('seeds', [])}
        # JavaScript regular expression sources; Python's re reads the common ones alike.
        self.include = [re.compile(p) for p in s.get('include', [])]
        self.exclude = [re.compile(p) for p in s.get('exclude', [])]
        self.substrings = [x for x in s.get('skipSubstrings', []) if x]
        self.extensions = set(s.get('skipExtensions', []))
        self.max_segments = s.get('maxPathSegments', 20)
        self.max_repeats = s.get('maxSegmentRepeats', 2)
        self.max_params = s.get('maxQueryParams', 20)
        self.max_depth = s.get('maxDepth', 50)
        self.max_redirects = s.get('maxRedirects', 5)

    def scope_key(self, hostname):
        if self.scope == 'host' or re.fullmatch(r'[\d.]+|\[.*\]|.*:.*', hostname):
            return hostname  # an IP address is its own domain
        # The registrable domain needs the Public Suffix List, which the standard library
        # has not: the last two labels stand in for it here (wrong for co.uk and the like).
        return '.'.join(hostname.split('.')[-2:])

    def refusal(self, url, depth, redirects, kind='page'):
        if self.scope != 'any' and self.scope_key(hostname_of(url)) not in self.seed_scopes:
            return 'scope'
        if any(p.search(url) for p in self.exclude):
            return 'exclude'
        if self.include and not any(p.search(url) for p in self.include):
            return 'include'
        if any(x in url for x in self.substrings):
            return 'substring'
        p = urllib.parse.urlsplit(url)
        last = p.path.rsplit('/', 1)[-1]
        if kind != 'sitemap' and '.' in last and last.rsplit('.', 1)[1].lower() in self.extensions:
            return 'extension'
        segments = p.path.split('/')[1:]
        if len(segments) > self.max_segments:
            return 'path-depth'
        if len(segments) > self.max_repeats:
            counts = {}
            for s in segments:
                if s:
                    counts[s] = counts.get(s, 0) + 1
                    if counts[s] > self.max_repeats:
                        return 'repeated-segment'
        if p.query and len(p.query.split('&')) > self.max_params:
            return 'query-params'
        if depth > self.max_depth:
            return 'depth'
        if redirects > self.max_redirects:
            return 'redirects'
        return None

    def route(self, hrefs, base, lease, redirect=False):
        """(outlinks, rejected, distinct URLs) for hrefs found at lease's URL."""
        depth = lease['depth'] if redirect else lease['depth'] + 1
        redirects = lease['redirects'] + 1 if redirect else 0
        seen, accepted, rejected = [], [], []
        for href in hrefs:
            url, why = canonical(href, base)
            if url is None:
                if why == 'too-long':
                    rejected.append({'url': href[:4096], 'depth': depth, 'via': lease['url'], 'reason': why})
                continue
            if url in seen:
                continue
            seen.append(url)
            reason = self.refusal(url, depth, redirects)
            if reason is None:
                accepted.append({'url': url, 'depth': depth, 'via': lease['url'], 'redirects': redirects, 'kind': 'page'})
            else:
                rejected.append({'url': url, 'depth': depth, 'via': lease['url'], 'reason': reason})
        return accepted, rejected, seen


# --------------------------------------------------------------------------------------
# HTML: title, links (<a>, <area>, page-naming <link>, frames, meta refresh), base, forms

PAGE_RELS = {'alternate', 'canonical', 'next', 'prev', 'previous', 'first', 'last', 'start', 'up',
             'index', 'contents', 'home', 'chapter', 'section', 'subsection', 'appendix',
             'glossary', 'help', 'license', 'author', 'privacy-policy', 'terms-of-service'}


class Page(HTMLParser):
    def __init__(self, url):
        super().__init__(convert_charrefs=True)
        self.base = url
        self.base_seen = False
        self.links = []  # (href, nofollow)
        self.title = None
        self.title_seen = False
        self.in_title = False
        self.title_text = ''
        self.has_form = False
        self.noindex = False
        self.nofollow = False

    def handle_starttag(self, tag, attrs):
        a = {k: (v or '') for k, v in attrs}
        rel = a.get('rel', '').lower().split()
        if tag in ('a', 'area') and 'href' in a:
            self.add(a['href'], 'nofollow' in rel)
        elif tag == 'link' and 'href' in a and PAGE_RELS.intersection(rel) and 'stylesheet' not in rel and 'icon' not in rel:
            self.add(a['href'], 'nofollow' in rel)
        elif tag in ('frame', 'iframe') and 'src' in a:
            self.add(a['src'], False)
        elif tag == 'base' and 'href' in a and not self.base_seen:
            self.base_seen = True
            self.base = urllib.parse.urljoin(self.base, a['href'].strip())
        elif tag == 'form':
            self.has_form = True
        elif tag == 'title' and not self.title_seen:
            self.title_seen = True
            self.in_title = True
        elif tag == 'meta' and a.get('name', '').strip().lower() == 'robots':
            for d in a.get('content', '').lower().split(','):
                d = d.strip()
                self.noindex |= d in ('noindex', 'none')
                self.nofollow |= d in ('nofollow', 'none')

    def add(self, href, nofollow):
        href = href.strip(''.join(chr(c) for c in range(0x21)))
        if href:
            self.links.append((href, nofollow))

    def handle_data(self, data):
        if self.in_title:
            self.title_text += data

    def handle_endtag(self, tag):
        if tag == 'title' and self.in_title:
            self.finish_title()

    def finish_title(self):
        self.in_title = False
        collapsed = re.sub(r'[\t\n\f\r ]+', ' ', self.title_text[:4096]).strip()
        self.title = collapsed or None


def parse(body, content_type, url):
    charset = 'utf-8'
    m = re.search(r'charset=([\w-]+)', content_type or '', re.I)
    if m:
        charset = m.group(1)
    page = Page(url)
    try:
        page.feed(body.decode(charset, errors='replace'))
        page.close()
    except Exception:
        pass
    if page.in_title:
        page.finish_title()
    return page


# --------------------------------------------------------------------------------------
# Fetching

def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).isoformat(timespec='milliseconds').replace('+00:00', 'Z')


def fetch(url, timeout=20):
    """A GET that follows no redirect: a dict of the response, or of the failure."""
    p = urllib.parse.urlsplit(url)
    started_iso, started = now_iso(), time.monotonic()
    conn_cls = http.client.HTTPSConnection if p.scheme == 'https' else http.client.HTTPConnection
    conn = conn_cls(p.hostname, p.port, timeout=timeout)
    try:
        conn.request('GET', (p.path or '/') + ('?' + p.query if p.query else ''),
                     headers={'User-Agent': USER_AGENT, 'Accept-Encoding': 'identity'})
        res = conn.getresponse()
        body = res.read()
        address = conn.sock.getpeername()[0] if conn.sock else None
        headers = {k.lower(): v for k, v in res.getheaders()}
        return {'ok': True, 'status': res.status, 'headers': headers, 'body': body,
                'startedAt': started_iso, 'ms': (time.monotonic() - started) * 1000, 'address': address}
    except ConnectionRefusedError as e:
        return failure('refused', e, started_iso, started, True)
    except socket.timeout as e:
        return failure('timeout', e, started_iso, started, False)
    except socket.gaierror as e:
        return failure('dns', e, started_iso, started, True)
    except OSError as e:
        return failure('network', e, started_iso, started, False)
    finally:
        conn.close()


def failure(error, exc, started_iso, started, connect_failed):
    return {'ok': False, 'error': error, 'message': str(exc), 'startedAt': started_iso,
            'ms': (time.monotonic() - started) * 1000, 'connectFailed': connect_failed}


def retry_after_ms(value):
    if value is None:
        return None
    v = value.strip()
    if v.isdigit():
        return int(v) * 1000
    try:
        at = datetime.datetime.strptime(v, '%a, %d %b %Y %H:%M:%S GMT').replace(tzinfo=datetime.timezone.utc)
        return max(0, int((at.timestamp() - time.time()) * 1000))
    except ValueError:
        return None


# --------------------------------------------------------------------------------------
# robots.txt (RFC 9309), as the crawl decides it: ROBOTS, and SAVEROBOTS after a read

class Robots:
    def __init__(self, text):
        self.groups = []  # (agents, [(allow, path)])
        agents, rules, in_rules = [], [], False
        for line in text.splitlines():
            line = line.split('#', 1)[0].strip()
            if ':' not in line:
                continue
            key, value = (x.strip() for x in line.split(':', 1))
            key = key.lower()
            if key == 'user-agent':
                if in_rules:
                    self.groups.append((agents, rules))
                    agents, rules, in_rules = [], [], False
                agents.append(value.lower())
            elif key in ('allow', 'disallow'):
                in_rules = True
                if value:
                    rules.append((key == 'allow', value))
        if agents:
            self.groups.append((agents, rules))

    def allowed(self, path):
        if path == '/robots.txt':
            return True
        token = USER_AGENT.split('/')[0].lower()
        mine = [r for agents, rs in self.groups if token in agents for r in rs]
        rules = mine if any(token in agents for agents, _ in self.groups) else [
            r for agents, rs in self.groups if '*' in agents for r in rs]
        best = None
        for allow, pattern in rules:
            regex = '^' + re.escape(pattern).replace(r'\*', '.*').replace(r'\$', '$')
            if pattern.endswith('$'):
                regex = '^' + re.escape(pattern[:-1]).replace(r'\*', '.*') + '$'
            if re.match(regex, path):
                if best is None or len(pattern) > len(best[1]) or (len(pattern) == len(best[1]) and allow):
                    best = (allow, pattern)
        return best is None or best[0]


def entry_of_read(origin):
    res = fetch(origin + '/robots.txt')
    if not res['ok']:
        entry = {'state': 'unavailable', 'status': None, 'text': [],
                 'failure': {'error': res['error'], 'message': res['message'], 'connectFailed': res['connectFailed']}}
    elif 200 <= res['status'] < 300:
        text = res['body'][:500 * 1024].decode('utf-8', errors='replace')
        entry = {'state': 'parsed', 'status': res['status'], 'text': [text[i:i + 8192] for i in range(0, len(text), 8192)]}
    elif 400 <= res['status'] < 500 and res['status'] != 429:
        entry = {'state': 'allow-all', 'status': res['status'], 'text': []}
    else:
        entry = {'state': 'unavailable', 'status': res['status'], 'text': []}
    return entry, res


# --------------------------------------------------------------------------------------
# The bunny

class Bunny:
    def __init__(self, conn, settings):
        self.conn = conn
        self.s = settings
        self.rules = Rules(settings)
        self.robots = {}  # origin -> (entry, Robots or None, valid until)
        self.sites = set()

    def record(self, lease, **fields):
        r = {'url': lease['url'], 'status': None, 'contentType': None, 'bytes': None,
             'depth': lease['depth'], 'title': None, 'outlinks': None, 'hasForm': None,
             'fetchedAt': None, 'durationMs': None, 'via': lease['via']}
        r.update(fields)
        return r

    def completion(self, lease, outcome, report, page, outlinks=(), rejected=(), has_form=None):
        c = {'lease': lease['id'], 'outcome': outcome, 'report': report, 'page': page,
             'outlinks': list(outlinks), 'rejected': list(rejected), 'modules': []}
        if has_form is not None:
            c['hasForm'] = has_form
        return c

    def robots_entry(self, origin):
        """The crawl's entry for origin, or ('read', entry, report) when this lease read it, or 'busy'."""
        known = self.robots.get(origin)
        if known and known[2] > time.time():
            return known[0], None
        reply = self.conn.request('ROBOTS', {'origin': origin})
        read_report = None
        if reply['answer'] == 'busy':
            return 'busy', None
        if reply['answer'] == 'read':
            entry, res = entry_of_read(origin)
            read_report = {'fetchMs': res['ms']}
            if res['ok'] and res.get('address'):
                read_report['address'] = res['address']
            if not res['ok'] and res['connectFailed']:
                read_report['connectFailed'] = True
            reply = self.conn.request('SAVEROBOTS', dict(entry, origin=origin, read=True))
        entry = reply
        rules = Robots(''.join(entry.get('text', []))) if entry.get('state') == 'parsed' else None
        self.robots[origin] = (entry, rules, time.time() + entry.get('validForMs', 0) / 1000)
        return entry, read_report

    def retry_ms(self, attempt, retry_after=None):
        if attempt > self.s.get('retries', 2):
            return None
        if retry_after is not None and retry_after > MAX_RETRY_AFTER_MS:
            return None
        backoff = self.s.get('retryDelayMs', 10000) * 2 ** max(0, attempt - 1)
        return backoff if retry_after is None else max(backoff, retry_after)

    def failed(self, lease, report, error, message, started_iso, ms):
        """A fetch with no response: retried while tries are left, else its line says why."""
        after = self.retry_ms(lease['attempt']) if error in TRANSIENT_ERRORS else None
        if after is not None:
            return self.completion(lease, {'kind': 'retry', 'error': error, 'afterMs': int(after)}, report, None)
        fields = {'fetchedAt': started_iso, 'durationMs': round(ms), 'error': error, 'detail': message}
        if lease['attempt'] > 1:
            fields['attempts'] = lease['attempt']
        return self.completion(lease, {'kind': 'failed', 'error': error}, report, self.record(lease, **fields))

    def visit(self, lease):
        origin = origin_of(lease['url'])
        report = None
        if not self.s.get('ignoreRobots', False):
            entry, read_report = self.robots_entry(origin)
            if entry == 'busy':
                return self.completion(lease, {'kind': 'deferred'}, {'fetchMs': 0, 'noRequest': True}, None)
            rules = self.robots[origin][1]
            path = urllib.parse.urlsplit(lease['url'])
            path = (path.path or '/') + ('?' + path.query if path.query else '')
            failure_ = entry.get('failure')
            released = read_report or {'fetchMs': 0, 'noRequest': True}
            if failure_:
                return self.failed(lease, released, failure_['error'], 'robots.txt: ' + failure_['message'], now_iso(), 0)
            if entry['state'] == 'unavailable':
                after = self.retry_ms(lease['attempt'])
                if after is not None:
                    return self.completion(lease, {'kind': 'retry', 'error': 'robots-unavailable', 'afterMs': int(after)}, released, None)
                return self.completion(lease, {'kind': 'failed', 'error': 'robots-unavailable'}, released,
                                       self.record(lease, error='robots-unavailable'))
            if rules is not None and not rules.allowed(path):
                return self.completion(lease, {'kind': 'refused', 'reason': 'robots'}, released,
                                       self.record(lease, error='robots'))
            if read_report is not None:
                # The read was this lease's request: the page waits for its next turn.
                return self.completion(lease, {'kind': 'deferred'}, read_report, None)
        res = fetch(lease['url'])
        report = {'fetchMs': res['ms']}
        if not res['ok']:
            if res['connectFailed']:
                report['connectFailed'] = True
            return self.failed(lease, report, res['error'], res['message'], res['startedAt'], res['ms'])
        report['address'] = res['address']
        status, headers, body = res['status'], res['headers'], res['body']
        after_ms = retry_after_ms(headers.get('retry-after')) if status in (429, 503) else None
        if after_ms is not None:
            report['retryAfterMs'] = after_ms
        if status in TRANSIENT_STATUSES:
            after = self.retry_ms(lease['attempt'], after_ms)
            if after is not None:
                return self.completion(lease, {'kind': 'retry', 'error': 'http-%d' % status, 'afterMs': int(after)}, report, None)
        ctype = headers.get('content-type')
        # Only a response has links and forms: none counted yet is 0 and false, not unknown.
        fields = {'status': status, 'contentType': ctype, 'bytes': len(body),
                  'outlinks': 0, 'hasForm': False,
                  'fetchedAt': res['startedAt'], 'durationMs': round(res['ms'])}
        if lease['attempt'] > 1:
            fields['attempts'] = lease['attempt']
        media = (ctype or '').split(';')[0].strip().lower()
        outlinks, rejected, has_form = [], [], False
        if 300 <= status < 400:
            location = headers.get('location')
            if location:
                outlinks, rejected, urls = self.rules.route([location], lease['url'], lease, redirect=True)
                if urls:
                    fields['location'] = urls[0]
        elif 200 <= status < 300 and media in HTML_TYPES:
            page = parse(body, ctype, lease['url'])
            fields['title'] = page.title
            has_form = page.has_form
            fields['hasForm'] = has_form
            if page.noindex:
                fields['noindex'] = True
            follow = [h for h, nofollow in page.links
                      if not page.nofollow and (not nofollow or self.s.get('followNofollow', False))]
            _, _, distinct = self.rules.route([h for h, _ in page.links], page.base, lease)
            fields['outlinks'] = len(distinct)
            outlinks, rejected, _ = self.rules.route(follow, page.base, lease)
        elif status >= 200 and media in HTML_TYPES:
            fields['title'] = parse(body, ctype, lease['url']).title
        self.claim_site(origin, res)
        record = self.record(lease, **fields)
        return self.completion(lease, {'kind': 'done'}, report, record, outlinks, rejected, has_form)

    def claim_site(self, origin, res):
        """The first response of a site: the server runs the site hooks on what CLAIMSITE carries."""
        if origin in self.sites:
            return
        self.sites.add(origin)
        entry = self.robots.get(origin, (None,))[0]
        robots = None
        if isinstance(entry, dict):
            robots = {'state': entry['state'], 'status': entry.get('status'), 'crawlDelayMs': None, 'sitemaps': []}
        self.conn.request('CLAIMSITE', {'origin': origin, 'address': res['address'],
                                        'site': {'address': res['address'], 'headers': res['headers'], 'robots': robots}})


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--server', required=True)
    ap.add_argument('--token')
    ap.add_argument('--crawl')
    ap.add_argument('--data')
    args = ap.parse_args()
    host, _, port = args.server.rpartition(':')
    conn = Connection(host.strip('[]'), int(port))
    if args.token:
        conn.send('AUTH', 0, {'token': args.token})
    hello = {'name': 'minimal-bunny', 'protocol': 1, 'modules': [], 'loadsModules': False}
    if args.crawl:
        hello['crawl'] = args.crawl
    welcome = conn.request('HELLO', hello)
    if welcome.get('missingModules'):
        print('the server runs modules this bunny does not: %s' % ', '.join(welcome['missingModules']), file=sys.stderr)
    bunny = Bunny(conn, welcome['settings'])
    while True:
        leases = conn.request('LEASE', {'n': 8, 'waitMs': 2000})
        if leases['ended'] is not None and not leases['leases']:
            break
        completions = [bunny.visit(lease) for lease in leases['leases']]
        if completions:
            done = conn.request_split('COMPLETE', complete_bodies(completions))
            if done['stale']:
                print('stale: %s' % done['stale'], file=sys.stderr)
    conn.request('LEAVE', {})
    return 0


if __name__ == '__main__':
    sys.exit(main())
