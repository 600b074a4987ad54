// xaip workbench: the few interactions htmx does not cover.
// 1. "Why not this plan?": clicking an action button appends it to the foil text area.
// 2. Summaries: clicking a node of the landmark picture chooses that subgoal (as its button),
//    and the subgoals already chosen are marked in the picture as on their buttons.
(function () {
  "use strict";
  document.addEventListener("click", function (event) {
    var step = event.target.closest("[data-foil-step]");
    if (step) {
      var box = document.getElementById(step.getAttribute("data-foil-target"));
      if (box) {
        box.value = (box.value.trim() ? box.value.trim() + "\n" : "") + step.getAttribute("data-foil-step");
      }
      event.preventDefault();
      return;
    }
    var node = event.target.closest(".svg g.node");
    if (node) {
      var title = node.querySelector("title");
      var id = title ? title.textContent.trim() : "";
      var button = document.querySelector('[data-subgoal-node="' + CSS.escape(id) + '"]');
      if (button) { button.click(); }
    }
  });
  function markChosen() {
    document.querySelectorAll(".svg g.node.chosen").forEach(function (node) {
      node.classList.remove("chosen");
    });
    document.querySelectorAll("[data-subgoal-node].chosen").forEach(function (button) {
      var id = button.getAttribute("data-subgoal-node");
      document.querySelectorAll(".svg g.node").forEach(function (node) {
        var title = node.querySelector("title");
        if (title && title.textContent.trim() === id) { node.classList.add("chosen"); }
      });
    });
  }
  document.addEventListener("DOMContentLoaded", markChosen);
  document.addEventListener("htmx:afterSettle", markChosen);
})();
