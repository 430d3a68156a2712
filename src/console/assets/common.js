// What the live console (console.js) and the static report (report.js) share:
// number formats, tables built with textContent (page titles and URLs come from the
// web: never as HTML), and uPlot charts.
(() => {
  const num = (n) => (n === null || n === undefined ? '-' : Math.round(n).toLocaleString('en-US'));
  const rate = (n) => (n === null || n === undefined ? '-' : n.toFixed(1));

  function bytes(n) {
    if (n === null || n === undefined) return '-';
    const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
    let v = n;
    let i = 0;
    while (v >= 1024 && i < units.length - 1) {
      v /= 1024;
      i++;
    }
    return `${i === 0 ? v : v.toFixed(1)} ${units[i]}`;
  }

  function duration(seconds) {
    const s = Math.floor(seconds);
    const h = Math.floor(s / 3600);
    const m = Math.floor((s % 3600) / 60);
    if (h > 0) return `${h}h${String(m).padStart(2, '0')}m`;
    if (m > 0) return `${m}m${String(s % 60).padStart(2, '0')}s`;
    return `${s}s`;
  }

  const two = (n) => String(n).padStart(2, '0');

  /** A time of day, 24-hour, in the browser's time zone: the charts' axis and the live tail say it the same way. */
  function clock(date, seconds = true) {
    const hm = `${two(date.getHours())}:${two(date.getMinutes())}`;
    return seconds ? `${hm}:${two(date.getSeconds())}` : hm;
  }

  /** The CSS class of a status or an error, for colour. */
  function statusClass(status, error) {
    if (status !== null && status !== undefined) return `s${Math.floor(status / 100)}xx`;
    return error ? 'serr' : '';
  }

  /**
   * Fills a table: head is a list of [label, 'num'?]; each row a list of cells, a cell
   * being text or { text, cls, title }.
   */
  function table(el, head, rows, empty = 'nothing yet') {
    const thead = document.createElement('thead');
    const hr = document.createElement('tr');
    for (const [label, kind] of head) {
      const th = document.createElement('th');
      th.textContent = label;
      if (kind) th.className = kind;
      hr.append(th);
    }
    thead.append(hr);
    const tbody = document.createElement('tbody');
    for (const row of rows) {
      const tr = document.createElement('tr');
      row.forEach((cell, i) => {
        const td = document.createElement('td');
        const c = typeof cell === 'object' && cell !== null ? cell : { text: cell };
        td.textContent = c.text === null || c.text === undefined ? '' : String(c.text);
        const kind = head[i]?.[1];
        td.className = [kind, c.cls].filter(Boolean).join(' ');
        if (c.title) td.title = c.title;
        tr.append(td);
      });
      tbody.append(tr);
    }
    if (rows.length === 0) {
      const tr = document.createElement('tr');
      const td = document.createElement('td');
      td.colSpan = head.length;
      td.className = 'muted';
      td.textContent = empty;
      tr.append(td);
      tbody.append(tr);
    }
    el.replaceChildren(thead, tbody);
  }

  /** A counts object as table rows, largest first. */
  function countRows(counts, total) {
    return Object.entries(counts)
      .sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]))
      .map(([k, v]) => [k, num(v), total > 0 ? `${((100 * v) / total).toFixed(1)}%` : '']);
  }

  /**
   * A uPlot chart of a few series over time (or over `time: false` numbers); push() adds a
   * point, the chart keeps the last `keep` points; `zero` starts the y axis at 0. The
   * element's data-points, data-y-min and data-x-ticks (each label with its x in CSS
   * pixels) say what it shows, for the tests.
   */
  function chart(el, labels, colors, options = {}) {
    const height = options.height ?? 180;
    const time = options.time !== false;
    const data = [[], ...labels.map(() => [])];
    const series = [
      {},
      ...labels.map((label, i) => ({
        label,
        stroke: colors[i],
        width: 1.5,
        fill: options.fill ? `${colors[i]}22` : undefined,
        points: { show: false },
      })),
    ];
    let ticks = [];
    // 24-hour labels, with seconds only when the ticks are less than a minute apart, and
    // room for a whole label between ticks (uPlot's own put "12:01:05pm" 50 px apart).
    const xAxis = time
      ? {
          space: 90,
          values: (u, splits, _axis, _space, incr) => {
            const labels = splits.map((v) => clock(new Date(v * 1000), incr < 60));
            ticks = splits.map((v, i) => [labels[i], Math.round(u.valToPos(v, 'x'))]);
            return labels;
          },
        }
      : {};
    const u = new uPlot(
      {
        width: Math.max(200, el.clientWidth || 400),
        height,
        series,
        scales: {
          x: { time },
          // A rate or a count starts at 0: a line at 41 of 40..42 is not a crash.
          ...(options.zero ? { y: { range: (_u, _min, max) => [0, max > 0 ? max * 1.1 : 1] } } : {}),
        },
        axes: [xAxis, { size: 56 }],
        legend: { show: true, live: false },
        cursor: { drag: { x: false, y: false } },
        hooks: {
          draw: [
            (chart) => {
              el.dataset.yMin = String(chart.scales.y.min);
              el.dataset.xTicks = JSON.stringify(ticks);
            },
          ],
        },
      },
      data,
      el,
    );
    new ResizeObserver(() => u.setSize({ width: Math.max(200, el.clientWidth), height })).observe(el);
    const keep = options.keep ?? 900;
    const show = () => {
      u.setData(data);
      el.dataset.points = String(data[0].length);
    };
    show();
    return {
      push(t, values) {
        data[0].push(t);
        values.forEach((v, i) => {
          data[i + 1].push(v);
        });
        if (data[0].length > keep) for (const column of data) column.splice(0, column.length - keep);
        show();
      },
      clear() {
        for (const column of data) column.length = 0;
        show();
      },
    };
  }

  window.cobweb = { num, rate, bytes, duration, clock, statusClass, table, countRows, chart };
})();
