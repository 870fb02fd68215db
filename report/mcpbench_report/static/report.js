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
  Array.prototype.forEach.call(document.querySelectorAll("input.filter"), function (input) {
    input.addEventListener("input", function () {
      var terms = input.value.toLowerCase().split(/\s+/).filter(Boolean);
      Array.prototype.forEach.call(document.querySelectorAll("table.filterable tbody tr"), function (row) {
        var text = row.textContent.toLowerCase();
        row.hidden = !terms.every(function (t) { return text.indexOf(t) !== -1; });
      });
    });
  });
  document.documentElement.setAttribute("data-report-ready", "1");
}());
