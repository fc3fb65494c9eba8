// The report's only script: hover details of the bars, and the link between a step of the
// table and its bar. It never fetches anything. When it has run without throwing, it sets
// data-ok="1" on <body> (a test checks this in the DOM of a headless browser).
(function () {
  "use strict";
  window.addEventListener("error", function (e) {
    document.body.setAttribute("data-error", String(e.message));
  });
  var tip = document.getElementById("tip");
  function place(e) {
    var x = e.clientX + 14, y = e.clientY + 14;
    var w = tip.offsetWidth, h = tip.offsetHeight;
    if (x + w > window.innerWidth - 8) { x = Math.max(8, e.clientX - w - 14); }
    if (y + h > window.innerHeight - 8) { y = Math.max(8, e.clientY - h - 14); }
    tip.style.left = x + "px";
    tip.style.top = y + "px";
  }
  function byOp(section, op) {
    return section.querySelectorAll('[data-op="' + CSS.escape(op) + '"]');
  }
  function highlight(el, on) {
    var section = el.closest(".section");
    var op = el.getAttribute("data-op");
    if (!section || !op) { return; }
    byOp(section, op).forEach(function (other) { other.classList.toggle("hl", on); });
  }
  var bars = document.querySelectorAll("svg g.bar, svg g.op, svg g.step, svg g.switch");
  bars.forEach(function (bar) {
    var title = bar.querySelector("title");
    if (title) {
      bar.setAttribute("data-tip", title.textContent);
      title.remove();
    }
    bar.addEventListener("mouseenter", function (e) {
      tip.textContent = bar.getAttribute("data-tip") || "";
      tip.hidden = false;
      place(e);
      highlight(bar, true);
    });
    bar.addEventListener("mousemove", place);
    bar.addEventListener("mouseleave", function () {
      tip.hidden = true;
      highlight(bar, false);
    });
  });
  document.querySelectorAll("table.steps tr[data-op]").forEach(function (row) {
    row.addEventListener("mouseenter", function () { highlight(row, true); });
    row.addEventListener("mouseleave", function () { highlight(row, false); });
  });
  // The step timeline: a click on an operation names its steps (and hides them again).
  document.querySelectorAll(".step-timeline g.op").forEach(function (op) {
    op.addEventListener("click", function () {
      var figure = op.closest("figure");
      var on = !op.classList.contains("expanded");
      figure.querySelectorAll('[data-op="' + CSS.escape(op.getAttribute("data-op")) + '"]').forEach(function (el) {
        el.classList.toggle("expanded", on);
      });
    });
  });
  document.body.setAttribute("data-bars", String(document.querySelectorAll("svg g.bar").length));
  document.body.setAttribute("data-steps", String(document.querySelectorAll(".step-timeline g.step").length));
  document.body.setAttribute("data-ok", "1");
})();
