// The archive's one script (no inline script: CSP script-src 'self').
// 1. Times: every <time datetime> is shown in the reader's own time zone.
// 2. Phases: the left and right arrow keys follow the page's rel=prev / rel=next links.
(function () {
  "use strict";
  function localTimes() {
    var format;
    try {
      format = new Intl.DateTimeFormat(undefined, {
        weekday: "short", year: "numeric", month: "short", day: "numeric",
        hour: "2-digit", minute: "2-digit", timeZoneName: "short"
      });
    } catch (error) {
      return;
    }
    var times = document.querySelectorAll("time[datetime]");
    for (var i = 0; i < times.length; i += 1) {
      var moment = new Date(times[i].getAttribute("datetime"));
      if (!isNaN(moment.getTime())) {
        times[i].title = times[i].textContent;
        times[i].textContent = format.format(moment);
      }
    }
  }
  function stepKeys(event) {
    if (event.altKey || event.ctrlKey || event.metaKey || event.shiftKey) { return; }
    var target = event.target;
    if (target && (target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName))) { return; }
    var rel = event.key === "ArrowLeft" ? "prev" : event.key === "ArrowRight" ? "next" : null;
    if (!rel) { return; }
    var link = document.querySelector('link[rel="' + rel + '"]');
    if (link) {
      event.preventDefault();
      window.location.href = link.href;
    }
  }
  document.addEventListener("DOMContentLoaded", localTimes);
  document.addEventListener("keydown", stepKeys);
}());
