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
  const span = p.first && p.last ? (Date.parse(p.last) - Date.parse(p.first)) / 1000 : 0;
  const items = [
    ['lines in pages.jsonl', c.num(p.lines)],
    ['fetched', c.num(fetched)],
    ['errors', c.num(errors)],
    ['refused', c.num(total(p.refused))],
    ['hosts', c.num(p.hosts.length)],
    ['crawl time', c.duration(span)],
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
  const depth = c.chart($('chart-depth'), ['URLs'], ['#1565c0'], {
    time: false,
    fill: true,
    keep: p.depths.length + 1,
  });
  p.depths.forEach((n, d) => {
    depth.push(d, [n]);
  });

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
  c.table(
    $('biggest'),
    [['URL'], ['size', 'num'], ['type'], ['status', 'num']],
    p.biggest.map((b) => [
      { text: b.url, cls: 'url', title: b.url },
      c.bytes(b.bytes),
      b.contentType ?? '',
      b.status ?? '',
    ]),
  );
})();
