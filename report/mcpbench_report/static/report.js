/* Sortable and filterable tables; no dependencies. */
(function () {
  "use strict";
  function value(cell) {
    var v = cell.getAttribute("data-v");
    if (v === null) { return cell.textContent.trim().toLowerCase(); }
    if (v === "") { return null; }
    var n = Number(v);
    return isNaN(n) ? v.toLowerCase() : n;
  }
  function sort(table, index, th) {
    var dir = th.getAttribute("aria-sort") === "descending" ? "ascending" : "descending";
    if (th.getAttribute("data-first") === "asc" && !th.hasAttribute("aria-sort")) { dir = "ascending"; }
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (c) { c.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", dir);
    var body = table.tBodies[0];
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = value(a.cells[index]), y = value(b.cells[index]);
      if (x === null && y === null) { return 0; }
      if (x === null) { return 1; }
      if (y === null) { return -1; }
      var c = x < y ? -1 : (x > y ? 1 : 0);
      return dir === "ascending" ? c : -c;
    });
    rows.forEach(function (r) { body.appendChild(r); });
  }
  Array.prototype.forEach.call(document.querySelectorAll("table.sortable"), function (table) {
    Array.prototype.forEach.call(table.tHead.rows[0].cells, function (th, i) {
      var button = th.querySelector("button");
      if (button) { button.addEventListener("click", function () { sort(table, i, th); }); }
    });
  });
  // Filters: text, and the facets (language, SDK kind, mode) whose state is kept in the URL's query, so a
  // filtered view can be linked (?language=Go&kind=framework&mode=session&columns=all).
  var facets = Array.prototype.slice.call(document.querySelectorAll("select.facet"));
  var text = document.querySelector("input.filter");
  var columns = document.querySelector("input.all-columns");
  function apply(writeUrl) {
    var terms = text ? text.value.toLowerCase().split(/\s+/).filter(Boolean) : [];
    var want = {};
    facets.forEach(function (s) { want[s.getAttribute("data-facet")] = s.value; });
    Array.prototype.forEach.call(document.querySelectorAll("table.filterable tbody tr"), function (row) {
      var rowText = row.textContent.toLowerCase();
      var ok = terms.every(function (t) { return rowText.indexOf(t) !== -1; });
      ["language", "kind"].forEach(function (f) {
        if (want[f] && row.hasAttribute("data-" + f) && row.getAttribute("data-" + f) !== want[f]) { ok = false; }
      });
      row.hidden = !ok;
    });
    Array.prototype.forEach.call(document.querySelectorAll("section.load[data-mode]"), function (section) {
      section.hidden = Boolean(want.mode) && section.getAttribute("data-mode") !== want.mode;
    });
    if (columns) { document.body.classList.toggle("wide", columns.checked); }
    if (writeUrl && window.history && window.history.replaceState) {
      var params = new URLSearchParams(window.location.search);
      facets.forEach(function (s) {
        if (s.value) { params.set(s.getAttribute("data-facet"), s.value); } else { params.delete(s.getAttribute("data-facet")); }
      });
      if (columns && columns.checked) { params.set("columns", "all"); } else { params.delete("columns"); }
      var query = params.toString();
      try {
        window.history.replaceState(null, "", window.location.pathname + (query ? "?" + query : "") + window.location.hash);
      } catch (e) { /* a browser that refuses it on file:// keeps the filters, not the link */ }
    }
  }
  var initial = new URLSearchParams(window.location.search);
  facets.forEach(function (s) {
    var v = initial.get(s.getAttribute("data-facet"));
    if (v && Array.prototype.some.call(s.options, function (o) { return o.value === v; })) { s.value = v; }
    s.addEventListener("change", function () { apply(true); });
  });
  if (columns) {
    columns.checked = initial.get("columns") === "all";
    columns.addEventListener("change", function () { apply(true); });
  }
  if (text) { text.addEventListener("input", function () { apply(false); }); }
  apply(false);
  document.documentElement.setAttribute("data-report-ready", "1");
}());
