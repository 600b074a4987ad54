// xaip workbench: the few interactions htmx does not cover.
// 1. "Why not this plan?": clicking an action button appends it to the foil text area.
// 2. Summaries: clicking a node of the landmark picture chooses that subgoal (as its button).
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
})();
