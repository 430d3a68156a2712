// The static report (cobweb report DIR): everything it shows is in the page's
// report-data element; nothing is fetched.
(() => {
  const c = window.cobweb;
  const $ = (id) => document.getElementById(id);
  const r = JSON.parse($('report-data').textContent);
  const p = r.pages;
  const total = (counts) => Object.values(counts).reduce((a, b) => a + b, 0);

  $('made').textContent =
    `${r.data}, made ${r.madeAt.slice(0, 19).replace('T', ' ')} UTC by cobweb ${r.version}`;
  const fetched = total(p.statuses);
  const errors =
    total(p.errors) +
    Object.entries(p.statuses)
      .filter(([s]) => Number(s) >= 400)
      .reduce((a, [, n]) => a + n, 0);
  const items = [
    ['lines in pages.jsonl', c.num(p.lines)],
    ['fetched', c.num(fetched)],
    ['errors', c.num(errors)],
    ['refused', c.num(total(p.refused))],
    ['hosts', c.num(p.hosts.length)],
    ['crawl time', c.duration(p.crawlSeconds ?? 0)],
    ['bytes', c.bytes(p.hosts.reduce((a, h) => a + h.bytes, 0))],
  ];
  if (r.store) {
    items.push(['queued in the store', c.num(r.store.queued + r.store.retrying)]);
    items.push(['done in the store', c.num(r.store.done)]);
    items.push(['crawling processes', c.num(r.store.crawlers)]);
  }
  $('counters').replaceChildren(
    ...items.map(([label, value]) => {
      const div = document.createElement('div');
      div.className = 'counter';
      const b = document.createElement('b');
      b.textContent = value;
      const s = document.createElement('span');
      s.textContent = label;
      div.append(b, s);
      return div;
    }),
  );

  const timeline = c.chart($('chart-timeline'), ['pages/s'], ['#2e7d32'], {
    fill: true,
    keep: p.timeline.length + 1,
  });
  for (const point of p.timeline) timeline.push(point.t, [point.pagesPerSecond]);
  depthBars($('chart-depth'), p.depths);

  const head = [['what'], ['URLs', 'num'], ['share', 'num']];
  c.table(
    $('statuses'),
    head,
    c
      .countRows(p.statuses, fetched)
      .map((row) => [{ text: row[0], cls: c.statusClass(Number(row[0])) }, row[1], row[2]]),
  );
  const failures = {
    ...p.errors,
    ...Object.fromEntries(Object.entries(p.refused).map(([k, v]) => [`not fetched: ${k}`, v])),
  };
  c.table($('errors'), head, c.countRows(failures, p.lines), 'none');
  c.table($('types'), head, c.countRows(p.contentTypes, fetched));
  const hosts = [...p.hosts].sort((a, b) => b.pages - a.pages || a.host.localeCompare(b.host));
  c.table(
    $('hosts'),
    [['host'], ['pages', 'num'], ['errors', 'num'], ['bytes', 'num']],
    hosts.slice(0, 50).map((h) => [h.host, c.num(h.pages), c.num(h.errors), c.bytes(h.bytes)]),
  );
  const slowest = [...p.hosts].sort((a, b) => b.meanMs - a.meanMs).slice(0, 15);
  c.table(
    $('slowest'),
    [['host'], ['mean ms', 'num'], ['pages', 'num']],
    slowest.map((h) => [h.host, h.meanMs.toFixed(1), c.num(h.pages)]),
  );
  // The URL last: it is the cell that gives way (with an ellipsis) when the table is narrow.
  c.table(
    $('biggest'),
    [['size', 'num'], ['status', 'num'], ['type'], ['URL']],
    p.biggest.map((b) => [
      c.bytes(b.bytes),
      b.status ?? '',
      { text: b.contentType ?? '', title: b.contentType ?? '' },
      { text: b.url, cls: 'url', title: b.url },
    ]),
  );

  /** Fetched pages per whole depth, one bar each: a depth is a count of hops, not a continuous scale. */
  function depthBars(el, depths) {
    const most = Math.max(1, ...depths);
    const bars = depths.map((n, d) => {
      const bar = document.createElement('div');
      bar.className = 'bar';
      bar.dataset.depth = String(d);
      bar.dataset.pages = String(n);
      bar.title = `depth ${d}: ${c.num(n)} ${n === 1 ? 'page' : 'pages'}`;
      const value = document.createElement('span');
      value.className = 'value';
      value.textContent = c.num(n);
      const fill = document.createElement('span');
      fill.className = 'fill';
      fill.style.height = `${(100 * n) / most}%`;
      const label = document.createElement('span');
      label.className = 'label';
      label.textContent = String(d);
      bar.append(value, fill, label);
      return bar;
    });
    if (bars.length === 0) {
      const none = document.createElement('span');
      none.className = 'muted';
      none.textContent = 'no page fetched';
      bars.push(none);
    }
    el.replaceChildren(...bars);
  }
})();
