// The live console: news over server-sent events (/events) once a second, actions as
// POST requests carrying the token in the x-cobweb-token header. Without the token the
// page only shows; on a console that is not on loopback it shows nothing until unlocked
// (the unlock's answer sets the session cookie that /events and /status then take).
(() => {
  const c = window.cobweb;
  const $ = (id) => document.getElementById(id);
  const TAIL = 50;
  const KEY = 'cobweb-token';

  let token = sessionStorage.getItem(KEY) ?? '';
  const fromHash = new URLSearchParams(location.hash.slice(1)).get('token');
  if (fromHash) {
    token = fromHash;
    sessionStorage.setItem(KEY, token);
    history.replaceState(null, '', location.pathname);
  }
  let unlocked = false;
  let state = 'connecting';
  let tail = [];
  let tokenHint = 'the token file';
  /** Whether the message shown is the lock's, which a newer hint may rewrite. */
  let lockShown = true;
  /** The console refused to show anything without the token. */
  let locked = false;
  let events = null;

  const charts = {
    rate: c.chart($('chart-rate'), ['pages/s'], ['#2e7d32'], { fill: true, zero: true }),
    queue: c.chart($('chart-queue'), ['queued', 'in flight'], ['#1565c0', '#ef6c00'], { zero: true }),
    status: c.chart(
      $('chart-status'),
      ['2xx', '3xx', '4xx', '5xx', 'failed'],
      ['#2e7d32', '#1565c0', '#c62828', '#6a1b9a', '#616161'],
      { zero: true },
    ),
  };

  function addPoint(p) {
    charts.rate.push(p.t, [p.pagesPerSecond]);
    charts.queue.push(p.t, [p.queued, p.leased]);
    charts.status.push(p.t, [p['2xx'], p['3xx'], p['4xx'], p['5xx'], p.failed]);
  }

  function say(text) {
    $('message').textContent = text;
    lockShown = false;
  }

  /** What the page says while it has no token: what the token opens, and where it is. */
  function sayLocked() {
    say(
      locked
        ? `Locked: this console shows nothing without the token (${tokenHint}). Type it and press Unlock.`
        : `Read-only: the actions need the token (${tokenHint}).`,
    );
    lockShown = true;
  }

  function setState(next) {
    state = next;
    const el = $('state');
    el.textContent = next;
    el.className = `state ${next}`;
    const live = next === 'running' || next === 'paused';
    $('pause').disabled = !unlocked || next !== 'running';
    $('resume').disabled = !unlocked || next !== 'paused';
    $('stop').disabled = !unlocked || !live;
    $('seed-urls').disabled = !unlocked || !live;
    $('add-seeds').disabled = !unlocked || !live;
  }

  function counter(label, value, id) {
    const div = document.createElement('div');
    div.className = 'counter';
    const b = document.createElement('b');
    b.textContent = value;
    b.id = `c-${id}`;
    const span = document.createElement('span');
    span.textContent = label;
    div.append(b, span);
    return div;
  }

  function errorsOf(run) {
    let n = run.failed;
    for (const [k, v] of Object.entries(run.byStatus)) if (k >= '4xx') n += v;
    return n;
  }

  function nextReady(readyAt) {
    if (readyAt === null) return 'at its limit';
    const ms = readyAt - Date.now();
    return ms <= 0 ? 'now' : `in ${(ms / 1000).toFixed(1)} s`;
  }

  function render(s) {
    if (!s) return;
    $('kind').textContent = s.kind;
    $('uptime').textContent =
      `up ${c.duration(s.uptimeSeconds)}${s.stoppedBy ? `, ended: ${s.stoppedBy}` : ''}`;
    setState(s.state);
    const run = s.thisRun;
    const items = [
      ['fetched this run', c.num(run.fetched), 'fetched'],
      ['pages/s', c.rate(run.pagesPerSecond), 'rate'],
      ['queued', c.num(s.store.queued + s.store.retrying), 'queued'],
      ['in flight', c.num(s.store.leased), 'in-flight'],
      ['errors this run', c.num(errorsOf(run)), 'errors'],
      ['refused this run', c.num(run.refused), 'refused'],
      ['bytes fetched', c.bytes(run.bytes), 'bytes'],
      ['done, all runs', c.num(s.store.done), 'done'],
    ];
    if (s.warcBytes !== null) items.push(['WARC written', c.bytes(s.warcBytes), 'warc']);
    if (s.hosts !== null) {
      items.push(['hosts active', c.num(s.hosts.active), 'hosts-active']);
      items.push(['hosts waiting', c.num(s.hosts.waiting), 'hosts-waiting']);
      items.push(['hosts retired', c.num(s.hosts.retired), 'hosts-retired']);
    }
    if (s.bunniesConnected !== null) items.push(['bunnies', c.num(s.bunniesConnected), 'bunnies']);
    items.push(['leases expired', c.num(s.store.leasesExpired), 'expired']);
    items.push(['stale completions', c.num(s.store.staleCompletions), 'stale']);
    $('counters').replaceChildren(...items.map(([label, value, id]) => counter(label, value, id)));

    const outcomes = [
      ...Object.entries(run.byStatus).map(([k, v]) => [{ text: k, cls: `s${k}` }, c.num(v), 'response']),
      ...Object.entries(run.byError).map(([k, v]) => [{ text: k, cls: 'serr' }, c.num(v), 'no response']),
      ...Object.entries(run.byReason).map(([k, v]) => [k, c.num(v), 'not fetched']),
    ];
    c.table($('outcomes'), [['outcome'], ['URLs', 'num'], ['kind']], outcomes);
    if (s.busiestHosts !== null) {
      c.table(
        $('hosts'),
        [['host'], ['queued', 'num'], ['in flight', 'num'], ['next ready'], ['gap', 'num']],
        s.busiestHosts.map((h) => [
          h.host,
          c.num(h.queued),
          c.num(h.inFlight),
          nextReady(h.readyAt),
          `${h.gapMs} ms`,
        ]),
        'no host has URLs queued',
      );
    }
    if (s.bunnies !== null) {
      $('bunnies-box').hidden = false;
      c.table(
        $('bunnies'),
        [
          ['id', 'num'],
          ['name'],
          ['from'],
          ['connected'],
          ['leased', 'num'],
          ['completed', 'num'],
          ['pages/s', 'num'],
        ],
        s.bunnies.map((b) => [
          b.crawler,
          b.name,
          b.address,
          c.duration((Date.now() - b.since) / 1000),
          c.num(b.leased),
          c.num(b.completed),
          c.rate(b.pagesPerSecond),
        ]),
        'no bunny connected',
      );
    }
    c.table(
      $('modules'),
      [
        ['module'],
        ['calls', 'num'],
        ['errors', 'num'],
        ['timeouts', 'num'],
        ['skipped', 'num'],
        ['mean ms', 'num'],
      ],
      s.modules.map((m) => [
        m.name,
        c.num(m.calls),
        c.num(m.errors),
        c.num(m.timeouts),
        c.num(m.skipped),
        m.meanMs.toFixed(2),
      ]),
      'no module loaded',
    );
  }

  function addTail(lines) {
    tail = [...lines.slice().reverse(), ...tail].slice(0, TAIL);
    c.table(
      $('tail'),
      [['time'], ['status'], ['ms', 'num'], ['size', 'num'], ['URL']],
      tail.map((l) => [
        l.fetchedAt ? c.clock(new Date(l.fetchedAt)) : '',
        { text: l.status ?? l.error ?? '', cls: c.statusClass(l.status, l.error) },
        l.durationMs === null ? '' : c.num(l.durationMs),
        c.bytes(l.bytes),
        { text: l.url, cls: 'url', title: l.url },
      ]),
    );
  }

  function connect() {
    events?.close();
    const source = new EventSource('/events');
    events = source;
    source.addEventListener('hello', (e) => {
      const d = JSON.parse(e.data);
      tokenHint = d.tokenHint;
      if (lockShown) sayLocked();
      for (const chart of Object.values(charts)) chart.clear();
      for (const p of d.history) addPoint(p);
      tail = [];
      addTail(d.tail);
      render(d.status);
    });
    source.addEventListener('tick', (e) => {
      const d = JSON.parse(e.data);
      if (d.point) addPoint(d.point);
      if (d.tail.length > 0) addTail(d.tail);
      render(d.status);
      if (d.status?.state === 'finished') source.close();
    });
    source.onerror = () => {
      if (state === 'finished') return;
      setState('disconnected');
      // A network error: the browser tries again by itself. A refusal closes the stream:
      // ask /status why (the token, or too many pages watching).
      if (source.readyState === EventSource.CLOSED) void refused(source);
    };
  }

  async function refused(source) {
    const res = await fetch('/status').catch(() => null);
    if (events !== source) return;
    if (res?.status === 401) {
      const answer = await res.json().catch(() => ({}));
      if (answer.tokenHint) tokenHint = answer.tokenHint;
      locked = true;
      sayLocked();
      return;
    }
    setTimeout(() => {
      if (events === source) connect();
    }, 2000);
  }

  async function post(action, body) {
    const res = await fetch(`/api/${action}`, {
      method: 'POST',
      headers: { 'x-cobweb-token': token, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const answer = await res.json().catch(() => ({}));
    if (!res.ok) throw new Error(answer.error ?? `${res.status} ${res.statusText}`);
    return answer;
  }

  async function unlock(candidate) {
    token = candidate;
    try {
      await post('check');
      unlocked = true;
      sessionStorage.setItem(KEY, token);
      say('Unlocked: the actions are yours.');
      // The answer set the session cookie: a stream refused for want of it may open now.
      if (locked || events === null || events.readyState === EventSource.CLOSED) {
        locked = false;
        if (state !== 'finished') connect();
      }
    } catch (err) {
      unlocked = false;
      sessionStorage.removeItem(KEY);
      say(`${locked ? 'Locked' : 'Read-only'}: ${err.message}`);
    }
    setState(state);
  }

  $('unlock').addEventListener('submit', (e) => {
    e.preventDefault();
    void unlock($('token').value.trim());
  });
  for (const action of ['pause', 'resume', 'stop']) {
    $(action).addEventListener('click', async () => {
      if (
        action === 'stop' &&
        !confirm('Stop the crawl? The fetches in flight finish; the same command again resumes.')
      )
        return;
      try {
        await post(action);
        say(`${action}: done`);
      } catch (err) {
        say(`${action} refused: ${err.message}`);
      }
    });
  }
  $('seeds').addEventListener('submit', async (e) => {
    e.preventDefault();
    const urls = $('seed-urls').value.split(/\s+/).filter(Boolean);
    if (urls.length === 0) return;
    try {
      const r = await post('seeds', { urls });
      const refused = r.refused.map((x) => `${x.url} (${x.reason})`);
      const invalid = r.invalid.map((x) => `${x.text} (${x.reason})`);
      say(
        `Seeds: ${r.added} queued, ${r.known} known already` +
          (refused.length > 0 ? `; refused: ${refused.join(', ')}` : '') +
          (invalid.length > 0 ? `; not URLs: ${invalid.join(', ')}` : ''),
      );
      $('seed-urls').value = '';
    } catch (err) {
      say(`Seeds refused: ${err.message}`);
    }
  });
  sayLocked();
  // With a token kept for the tab, unlock first: where every request needs it, the
  // stream opens with the cookie the unlock sets.
  if (token !== '') void unlock(token).then(() => events ?? connect());
  else connect();
})();
