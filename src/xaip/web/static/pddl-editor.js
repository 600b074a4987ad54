// xaip workbench: the model editor. CodeMirror 5 (vendored, static/codemirror) with a
// PDDL mode of ours, and the first error of a check marked inline: the token underlined
// and the message under its line. The server decides what is wrong (POST
// /api/models/check, the same parsers as an upload); this file only shows it.
// Keyboard: Tab and Shift-Tab move between controls as everywhere else (Enter keeps the
// indentation), so the editor never traps focus.
(function () {
  "use strict";
  if (!window.CodeMirror) { return; }  // without it the plain text areas still work
  CodeMirror.defineSimpleMode("pddl", {
    start: [
      { regex: /;.*/, token: "comment" },
      { regex: /\?[A-Za-z][\w-]*/, token: "variable-2" },
      { regex: /:[A-Za-z][\w-]*/, token: "keyword" },
      { regex: /-?\d+(?:\.\d+)?\b/, token: "number" },
      { regex: /(\()(define|domain|problem)\b/, token: [null, "def"] },
      { regex: /(?:and|or|not|imply|forall|exists|when|either|increase|decrease|assign|scale-up|scale-down|probabilistic|oneof|total-cost|minimize|maximize)\b/, token: "builtin" },
      { regex: /[()]/, token: "bracket" },
      { regex: /[A-Za-z][\w-]*/, token: "atom" }
    ],
    meta: { lineComment: ";" }
  });

  var editors = [];
  var marks = [];

  function clearMarks() {
    marks.forEach(function (m) { m.clear(); });
    marks = [];
    editors.forEach(function (e) { e.textarea.removeAttribute("aria-invalid"); });
  }

  // A name, or a whole parenthesised expression on this line when the error points at
  // its "(" (the parsers point at the atom that is wrong).
  function tokenLength(rest) {
    if (rest.charAt(0) === "(") {
      var depth = 0;
      for (var i = 0; i < rest.length; i++) {
        if (rest.charAt(i) === "(") { depth++; }
        if (rest.charAt(i) === ")" && --depth === 0) { return i + 1; }
      }
      return 1;
    }
    var token = /^[^\s()]+/.exec(rest);
    return token ? token[0].length : Math.min(1, rest.length);
  }

  function mark(entry, line, column, message) {
    var cm = entry.cm;
    var row = Math.max(0, Math.min(cm.lineCount() - 1, line - 1));
    var text = cm.getLine(row) || "";
    var start = Math.max(0, Math.min(text.length, column - 1));
    var end = start + tokenLength(text.slice(start));
    var widget = document.createElement("div");
    widget.className = "cm-error-widget";
    widget.setAttribute("role", "alert");
    // the place is said once: without the parser's "file:line:column: " prefix
    widget.textContent = "Line " + line + ", column " + column + ": " +
      String(message).replace(/^[^\s:]+:\d+(?::\d+)?: /, "");
    marks.push(cm.addLineWidget(row, widget, { coverGutter: false }));
    if (end > start) {
      marks.push(cm.markText({ line: row, ch: start }, { line: row, ch: end },
        { className: "cm-error-mark", attributes: { title: message } }));
    }
    entry.textarea.setAttribute("aria-invalid", "true");
    cm.scrollIntoView({ line: row, ch: start }, 80);
  }

  function say(html, bad) {
    var box = document.getElementById("check-result");
    box.innerHTML = "";
    var badge = document.createElement("span");
    badge.className = "status " + (bad ? "bad" : "verified");
    badge.textContent = bad ? "error" : "checked";
    var words = document.createElement("span");
    words.className = "message";
    words.textContent = " " + html;
    box.appendChild(badge);
    box.appendChild(words);
  }

  function check(form) {
    editors.forEach(function (e) { e.cm.save(); });
    clearMarks();
    var body = new FormData(form);
    body.delete("then");
    fetch("/api/models/check", { method: "POST", body: body, headers: { accept: "application/json" } })
      .then(function (response) { return response.json(); })
      .then(function (answer) {
        if (answer.status === "ok") {
          say("every file parses and checks: " + answer.files.join(", "), false);
          return;
        }
        say(answer.message || "the model was refused", true);
        var where = answer.location;
        var entry = where && editors.filter(function (e) { return e.file === where.file; })[0];
        if (entry) { mark(entry, where.line, where.column, answer.message); }
      })
      .catch(function () { say("the check could not be run (is the server up?)", true); });
  }

  function start() {
    var form = document.getElementById("editor-form");
    if (!form) { return; }
    document.querySelectorAll("textarea[data-file]").forEach(function (textarea) {
      var cm = CodeMirror.fromTextArea(textarea, {
        mode: textarea.getAttribute("data-mode") === "pddl" ? "pddl" : null,
        lineNumbers: true, indentUnit: 2, viewportMargin: Infinity,
        extraKeys: { Tab: false, "Shift-Tab": false }
      });
      cm.getInputField().setAttribute("aria-label", textarea.getAttribute("data-file"));
      cm.getWrapperElement().setAttribute("data-file", textarea.getAttribute("data-file"));
      var entry = { cm: cm, textarea: textarea, file: textarea.getAttribute("data-file") };
      editors.push(entry);
      cm.on("change", function () { if (marks.length) { clearMarks(); } });
      var line = textarea.getAttribute("data-error-line");
      if (line) {
        mark(entry, parseInt(line, 10), parseInt(textarea.getAttribute("data-error-column"), 10),
          textarea.getAttribute("data-error-message"));
        var plain = document.getElementById("error-" + textarea.name);
        if (plain) { plain.hidden = true; }  // shown inline in the editor instead
      }
    });
    document.getElementById("check-model").addEventListener("click", function () { check(form); });
  }
  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
