/* Injected into a copy of a submission's report by check-report: reads
 * the page as a reader sees it and writes what it found into
 * <pre id="probe-result"> for --dump-dom. */
(function () {
  var out = { sections: [], errors: [], scripts: 0,
              pwned: !!window.pwned };
  function bg(el) { return getComputedStyle(el).backgroundColor; }
  try {
    document.querySelectorAll('section').forEach(function (s) {
      var hot = [], hotBg = [], gutterBg = [];
      s.querySelectorAll('table.src tr.hot').forEach(function (tr) {
        hot.push(parseInt(tr.cells[0].textContent, 10));
        hotBg.push(bg(tr.querySelector('td.c')));
        var m = tr.querySelector('td.hotm');
        gutterBg.push(m ? bg(m) : '');
      });
      var plain = s.querySelector('table.src tr:not(.hot):not(.traffic) td.c');
      out.sections.push({
        id: s.id,
        lines: s.querySelectorAll('table.src tbody tr').length,
        hot: hot, hotBg: hotBg, gutterBg: gutterBg,
        plainBg: plain ? bg(plain) : '',
        badCells: s.querySelectorAll('table.grid td.bad').length,
        grids: s.querySelectorAll('table.grid').length,
        hints: s.querySelectorAll('ul.hints li').length,
        height: s.getBoundingClientRect().height
      });
    });
    out.scripts = document.querySelectorAll('script').length;
    out.images = document.querySelectorAll('img').length;
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
