/* Injected into a copy of the leaderboard page by check-html: exercises
 * the page the way a reader would (sorting by clicking a header) and
 * writes what it saw into <pre id="probe-result"> for --dump-dom. */
(function () {
  function names(t) {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) {
      return r.cells[1].textContent;
    });
  }
  function totals(t) {
    return Array.prototype.map.call(t.tBodies[0].rows, function (r) {
      return parseFloat(r.cells[2].dataset.v);
    });
  }
  var out = { tables: [], charts: [], errors: [] };
  try {
    document.querySelectorAll('table.lb').forEach(function (t) {
      var th = t.tHead.rows[0].cells[2];
      var before = names(t);
      th.querySelector('button').click();
      var asc = totals(t), ascSort = th.getAttribute('aria-sort');
      th.querySelector('button').click();
      var desc = totals(t), descSort = th.getAttribute('aria-sort');
      out.tables.push({
        rows: t.tBodies[0].rows.length,
        columns: t.tHead.rows[0].cells.length,
        before: before, asc: asc, desc: desc,
        ascSort: ascSort, descSort: descSort,
        width: t.getBoundingClientRect().width,
        rowHeight: t.tBodies[0].rows.length ?
          t.tBodies[0].rows[0].getBoundingClientRect().height : 0
      });
    });
    document.querySelectorAll('svg.chart').forEach(function (s) {
      var box = s.getBoundingClientRect();
      var bars = Array.prototype.map.call(s.querySelectorAll('rect.bar'),
        function (r) { return r.getBBox().width; });
      out.charts.push({ width: box.width, height: box.height,
                        bars: bars, texts: s.querySelectorAll('text').length });
    });
    out.viewport = window.innerWidth;
    out.pageWidth = document.documentElement.scrollWidth;
  } catch (e) {
    out.errors.push(String(e));
  }
  var pre = document.createElement('pre');
  pre.id = 'probe-result';
  pre.textContent = JSON.stringify(out);
  document.body.appendChild(pre);
})();
