// xaip workbench: the few interactions htmx does not cover.
// 1. "Why not this plan?": clicking an action button appends it to the foil text area.
// 2. Summaries: clicking a node of the landmark picture chooses that subgoal (as its button),
//    and the subgoals already chosen are marked in the picture as on their buttons.
// 3. Downloads of an inline SVG picture: as the SVG itself, or drawn to a PNG (twice the
//    picture's size, on white), saved under the link's download name.
// 4. While a page's answer is computed, its "Working" line counts the seconds so far.
(function () {
  "use strict";
  function save(blob, name) {
    var link = document.createElement("a");
    link.href = URL.createObjectURL(blob);
    link.download = name;
    document.body.appendChild(link);
    link.click();
    setTimeout(function () { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
  }
  function svgOf(id) {
    var svg = document.querySelector("#" + CSS.escape(id) + " svg");
    if (!svg) { return null; }
    var copy = svg.cloneNode(true);
    copy.setAttribute("xmlns", "http://www.w3.org/2000/svg");
    return { text: new XMLSerializer().serializeToString(copy), box: svg.getBoundingClientRect(), svg: svg };
  }
  function downloadPicture(link, asPng) {
    var picture = svgOf(link.getAttribute(asPng ? "data-download-png" : "data-download-svg"));
    if (!picture) { return; }
    var blob = new Blob([picture.text], { type: "image/svg+xml" });
    if (!asPng) { save(blob, link.getAttribute("download")); return; }
    var view = picture.svg.viewBox && picture.svg.viewBox.baseVal;
    var width = (view && view.width) || picture.box.width;
    var height = (view && view.height) || picture.box.height;
    var image = new Image();  // a data: address: the page's policy allows no blob: images
    var url = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(picture.text);
    image.onload = function () {
      var canvas = document.createElement("canvas");
      canvas.width = Math.ceil(2 * width);
      canvas.height = Math.ceil(2 * height);
      var context = canvas.getContext("2d");
      context.fillStyle = "#fff";
      context.fillRect(0, 0, canvas.width, canvas.height);
      context.drawImage(image, 0, 0, canvas.width, canvas.height);
      canvas.toBlob(function (png) { save(png, link.getAttribute("download")); }, "image/png");
    };
    image.src = url;
  }
  document.addEventListener("click", function (event) {
    var picture = event.target.closest("[data-download-svg], [data-download-png]");
    if (picture) {
      event.preventDefault();
      downloadPicture(picture, picture.hasAttribute("data-download-png"));
      return;
    }
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
  var ticking = null;
  function stopCounting() {
    if (ticking !== null) { clearInterval(ticking); ticking = null; }
  }
  document.addEventListener("htmx:beforeRequest", function () {
    var line = document.getElementById("working");
    if (!line) { return; }
    var shown = line.querySelector(".elapsed");
    if (!shown) {
      shown = document.createElement("span");
      shown.className = "elapsed";
      line.appendChild(shown);
    }
    var started = Date.now();
    function show() {
      shown.textContent = " " + Math.round((Date.now() - started) / 1000) + " s so far.";
    }
    stopCounting();
    show();
    ticking = setInterval(show, 1000);
  });
  document.addEventListener("htmx:afterRequest", stopCounting);
})();
