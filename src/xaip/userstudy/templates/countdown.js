// The countdown of a timed condition in an xaip user study (docs/userstudy.md).
// Shows the time left; at zero it marks the form as timed out and sends it with the
// answers given so far. The server enforces the limit on its own clock either way: this
// script only spares the participant a refused page.
(function () {
  "use strict";
  var box = document.getElementById("countdown");
  var form = document.getElementById("answers");
  var flag = document.getElementById("timed-out");
  if (!box || !form || !flag) {
    return;
  }
  var deadline = Date.now() + 1000 * Number(box.dataset.secondsLeft);
  var sent = false;
  function tick() {
    var left = Math.max(0, Math.ceil((deadline - Date.now()) / 1000));
    var seconds = left % 60;
    box.textContent = Math.floor(left / 60) + ":" + (seconds < 10 ? "0" : "") + seconds;
    if (left > 0) {
      window.setTimeout(tick, 250);
    } else if (!sent) {
      sent = true;
      flag.value = "yes";
      form.submit();
    }
  }
  tick();
})();
