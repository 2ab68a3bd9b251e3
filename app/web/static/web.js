// gradeformer web app: the one script, served by the app and loaded with the page's CSP nonce.
// Review page keyboard shortcuts: a = accept, p = type points, a digit = set that many points,
// c = comment, n = next item, Esc = leave a text box.
"use strict";
// A long document opens at its first marked evidence.
for (const doc of document.querySelectorAll(".doc")) {
  const mark = doc.querySelector("mark");
  if (mark) doc.scrollTop = Math.max(0, mark.offsetTop - doc.offsetTop - 60);
}
(function () {
  const form = document.getElementById("decide-form");
  if (!form) return;
  const typing = (el) => el && (el.tagName === "INPUT" || el.tagName === "TEXTAREA");
  const points = document.getElementById("points");
  const comment = document.getElementById("comment");
  document.addEventListener("keydown", (event) => {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    if (typing(document.activeElement)) {
      if (event.key === "Escape") document.activeElement.blur();
      return;
    }
    const key = event.key;
    if (key === "a") {
      event.preventDefault();
      form.requestSubmit(document.getElementById("accept"));
    } else if (key === "n") {
      event.preventDefault();
      window.location.href = document.getElementById("next-link").href;
    } else if (key === "c") {
      event.preventDefault();
      comment.focus();
    } else if (key === "p") {
      event.preventDefault();
      points.focus();
      points.select();
    } else if (/^[0-9]$/.test(key)) {
      event.preventDefault();
      points.value = key;
      form.requestSubmit(document.getElementById("set-points"));
    }
  });
})();
