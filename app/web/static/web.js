// gradeformer web app: the one script, served by the app and loaded with the page's CSP nonce.
// Review page keyboard shortcuts: a = accept, p = type points, a digit = set that many points,
// c = comment, u = undo the decision just saved, n = next item, Esc = leave a text box;
// Enter in the points box sets the typed points.
// Answer-groups page shortcuts: j / k = next / previous group, a = accept the group's
// suggestion, s = type points for the group, m = show or hide its members, u = undo the
// group decision just made.
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
      // Enter in the points box sets those points (never the accept button).
      if (event.key === "Enter" && document.activeElement === points) {
        event.preventDefault();
        form.requestSubmit(document.getElementById("set-points"));
      }
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
(function () {
  const groups = Array.from(document.querySelectorAll("section.group"));
  if (!groups.length) return;
  let at = 0;
  function show(i) {
    at = Math.max(0, Math.min(groups.length - 1, i));
    for (const g of groups) g.classList.remove("current");
    groups[at].classList.add("current");
    groups[at].focus({ preventScroll: true });
    groups[at].scrollIntoView({ block: "nearest" });
  }
  document.addEventListener("keydown", (event) => {
    const tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA") return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const g = groups[at];
    const key = event.key;
    if (key === "j") show(at + 1);
    else if (key === "k") show(at - 1);
    else if (key === "a") g.querySelector("button.accept").click();
    else if (key === "s") g.querySelector("form.decide input[name=points]").focus();
    else if (key === "m") {
      const d = g.querySelector("details");
      d.open = !d.open;
    } else return;
    event.preventDefault();
  });
  groups.forEach((g, i) => g.addEventListener("click", () => show(i)));
  // After a decision the page comes back at the group decided (#group-<id>): keep it current.
  const back = window.location.hash.slice(1);
  const landed = groups.findIndex((g) => g.id === back);
  show(landed >= 0 ? landed : 0);
  if (landed >= 0) groups[landed].scrollIntoView({ block: "start" });
})();
// u = undo the decision just saved, on every page whose notice offers it (the review queue,
// even when it is empty now; a submission page; an answer-groups page).
(function () {
  const undo = document.getElementById("undo-form");
  if (!undo) return;
  document.addEventListener("keydown", (event) => {
    const tag = event.target && event.target.tagName;
    if (tag === "INPUT" || tag === "TEXTAREA" || event.key !== "u") return;
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    event.preventDefault();
    undo.requestSubmit();
  });
})();
