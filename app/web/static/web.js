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
// Math in an answer (the review page's answer, the staff submission page's located answers):
// each box's LaTeX ($...$, $$...$$, \(...\), \[...\]) rendered by the vendored KaTeX as
// MathML (no inline styles, no fonts: the CSP holds), loaded only on a page that shows math.
// Student text never becomes HTML: text pieces are text nodes, math pieces go through
// katex.render with trust off and bounded expansion.
// An answer group's or active grading's answer (pre.answer, written by pages outside app/web)
// gets the same rendered copy beside it here, built from its text, when it has a delimiter.
(function () {
  for (const pre of document.querySelectorAll("main pre.answer")) {
    const text = pre.textContent;
    if (!["$", "\\(", "\\["].some((mark) => text.includes(mark))) continue;
    const view = document.createElement("div");
    view.className = "math-view";
    view.dataset.mathView = "";
    view.hidden = true;
    const label = document.createElement("p");
    label.className = "muted";
    label.textContent = "Math rendered";
    const box = document.createElement("div");
    box.className = "doc math tex";
    box.textContent = text;
    view.append(label, box);
    pre.after(view);
  }
})();
(function () {
  const boxes = document.querySelectorAll("[data-math-view] .tex");
  if (!boxes.length) return;
  const MAX_TEXT = 20000;
  const MAX_PIECES = 300;
  const PAIRS = [["$$", "$$"], ["\\[", "\\]"], ["\\(", "\\)"], ["$", "$"]];
  function pieces(text) {
    // One left-to-right pass: at each step the nearest opening delimiter, then its closer.
    const found = [];
    let at = 0;
    while (at < text.length && found.length < MAX_PIECES) {
      let best = null;
      for (const [open, close] of PAIRS) {
        const start = text.indexOf(open, at);
        if (start >= 0 && (best === null || start < best.start)) best = { start, open, close };
      }
      if (best === null) break;
      const end = text.indexOf(best.close, best.start + best.open.length);
      if (end < 0) break;
      if (best.start > at) found.push({ text: text.slice(at, best.start) });
      found.push({ tex: text.slice(best.start + best.open.length, end),
                   raw: text.slice(best.start, end + best.close.length),
                   display: best.open === "$$" || best.open === "\\[" });
      at = end + best.close.length;
    }
    if (at < text.length) found.push({ text: text.slice(at) });
    return found;
  }
  function render(box) {
    const text = box.textContent.slice(0, MAX_TEXT);
    box.textContent = "";
    for (const piece of pieces(text)) {
      if (piece.text !== undefined) {
        box.appendChild(document.createTextNode(piece.text));
        continue;
      }
      const span = document.createElement("span");
      try {
        window.katex.render(piece.tex, span, {
          output: "mathml", displayMode: piece.display, throwOnError: false, trust: false,
          strict: "ignore", maxSize: 10, maxExpand: 200,
        });
      } catch (error) {
        // throwOnError covers KaTeX's parse errors only: LaTeX nested a few thousand deep
        // overflows the stack (RangeError). Uncaught, it stopped every box after this one,
        // other students' answers on the same page: this piece stays text instead.
        span.textContent = piece.raw;
      }
      box.appendChild(span);
    }
    box.closest("[data-math-view]").hidden = false;
  }
  const script = document.createElement("script");
  script.src = "/static/katex.min.js";
  script.nonce = document.currentScript ? document.currentScript.nonce : "";
  script.addEventListener("load", () => boxes.forEach(render));
  document.head.appendChild(script);
})();
// Upload forms (a student's submit page, the staff Submissions page): drag and drop, one XHR
// per file with a progress bar, refusals in words. A staff batch adds a row per file and
// follows its grading by polling batch.json until every file is graded.
(function () {
  const form = document.getElementById("upload-form");
  if (!form) return;
  const input = document.getElementById("file");
  const drop = document.getElementById("drop");
  const bar = document.getElementById("upload-progress");
  const error = document.getElementById("upload-error");
  const batch = form.dataset.batch === "1";
  for (const kind of ["dragenter", "dragover"]) {
    drop.addEventListener(kind, (ev) => { ev.preventDefault(); drop.classList.add("over"); });
  }
  for (const kind of ["dragleave", "drop"]) {
    drop.addEventListener(kind, (ev) => { ev.preventDefault(); drop.classList.remove("over"); });
  }
  drop.addEventListener("drop", (ev) => {
    if (ev.dataTransfer && ev.dataTransfer.files.length) input.files = ev.dataTransfer.files;
  });
  // The largest file accepted, in bytes and in words (the server's limit, on the form).
  const maxBytes = Number(form.dataset.maxBytes || 0);
  const maxWords = form.dataset.maxWords || "the upload limit";
  function tooBig(file) {
    if (!maxBytes || file.size <= maxBytes) return "";
    const mb = (file.size / (1024 * 1024)).toFixed(1);
    return `Not uploaded: ${file.name} (${mb} MB) is over the limit of ${maxWords} per file.`;
  }
  function words(status, body, retry) {
    // the server's 413 counts bytes of the whole request: say the limit in words instead
    if (status === 413) return `Not uploaded: the file is larger than ${maxWords}.`;
    if (body && body.detail) {
      const wait = status === 429 && retry ? ` (try again in ${retry} s)` : "";
      return `Not uploaded: ${body.detail}${wait}`;
    }
    if (status === 0) return "Not uploaded: the connection failed. Check it and try again.";
    return `Not uploaded (error ${status}). Reload the page and try again.`;
  }
  function send(file) {
    const data = new FormData(form);
    data.delete("file");
    data.append("file", file, file.name);
    return new Promise((resolve) => {
      const xhr = new XMLHttpRequest();
      xhr.open("POST", form.action);
      xhr.setRequestHeader("Accept", "application/json");
      xhr.upload.addEventListener("progress", (ev) => {
        if (ev.lengthComputable) bar.value = Math.round((100 * ev.loaded) / ev.total);
      });
      xhr.addEventListener("load", () => {
        let body = null;
        try { body = JSON.parse(xhr.responseText); } catch (_) { body = null; }
        if (xhr.status < 300 && !body) {
          body = { detail: "your session has ended; reload the page and sign in again" };
          resolve({ ok: false, status: 401, body });
          return;
        }
        resolve({ ok: xhr.status < 300, status: xhr.status, body,
                  retry: xhr.getResponseHeader("Retry-After") });
      });
      xhr.addEventListener("error", () => resolve({ ok: false, status: 0, body: null }));
      xhr.send(data);
    });
  }
  const table = document.querySelector("#batch table.batch tbody");
  const holder = document.getElementById("batch");
  const ids = holder && holder.dataset.ids ? holder.dataset.ids.split(",") : [];
  function cell(row, i, text, href) {
    const td = row.children[i];
    td.textContent = "";
    if (href) {
      const a = document.createElement("a");
      a.href = href;
      a.textContent = text;
      td.appendChild(a);
    } else td.textContent = text;
  }
  // Each new cell carries its column's name, as the server's rows do (a card on a phone).
  const labels = table ? Array.from(table.closest("table").querySelectorAll("thead th"),
                                    (th) => th.textContent) : [];
  function addRow(name) {
    const row = document.createElement("tr");
    for (let i = 0; i < 6; i++) {
      const td = document.createElement("td");
      if (labels[i]) td.dataset.label = labels[i];
      row.appendChild(td);
    }
    cell(row, 1, name);
    cell(row, 3, "uploading");
    table.appendChild(row);
    return row;
  }
  function update(row, r) {
    row.dataset.id = String(r.id);
    cell(row, 0, `#${r.id}`, r.url);
    cell(row, 1, r.file || "");
    cell(row, 2, r.student || "");
    cell(row, 3, r.status);
    cell(row, 4, r.total || "");
    cell(row, 5, r.doubt || "");
    row.classList.toggle("disputed", Boolean(r.doubt));
  }
  let polling = false;
  async function poll() {
    if (polling || !ids.length) return;
    polling = true;
    while (true) {
      const answer = await fetch(`/assignments/${holder.dataset.slug}/batch.json?ids=${ids.join(",")}`,
                                 { headers: { Accept: "application/json" } });
      if (!answer.ok) break;
      const rows = await answer.json();
      for (const r of rows) {
        const row = table.querySelector(`tr[data-id="${r.id}"]`);
        if (row) update(row, r);
      }
      const status = document.getElementById("batch-status");
      const done = rows.filter((r) => r.final).length;
      if (status) status.textContent = `${done} of ${ids.length} graded`;
      if (done === rows.length) break;
      await new Promise((r) => setTimeout(r, 1500));
    }
    polling = false;
  }
  if (holder) {
    const status = document.createElement("p");
    status.id = "batch-status";
    status.setAttribute("aria-live", "polite");
    holder.insertBefore(status, holder.firstChild);
    table.querySelectorAll("tr").forEach((row, i) => { row.dataset.id = ids[i]; });
    poll();
  }
  form.addEventListener("submit", async (ev) => {
    ev.preventDefault();
    error.textContent = "";
    const files = Array.from(input.files);
    if (!files.length) { error.textContent = "Choose a file first."; return; }
    const student = document.getElementById("student");
    if (batch && files.length > 1 && student && student.value !== "@name") {
      error.textContent = "A roster entry files one file: choose \u201cfrom each file's name\u201d " +
        "to upload several.";
      return;
    }
    bar.hidden = false;
    for (const file of files) {
      bar.value = 0;
      const row = batch ? addRow(file.name) : null;
      const big = tooBig(file);
      const answer = big ? { ok: false, message: big } : await send(file);
      if (!batch) {
        if (answer.ok) window.location.href = answer.body.url;
        else {
          error.textContent = answer.message || words(answer.status, answer.body, answer.retry);
          bar.hidden = true;
        }
        return;
      }
      if (answer.ok) {
        ids.push(String(answer.body.id));
        update(row, { ...answer.body, total: "", doubt: "", url: `/submissions/${answer.body.id}` });
      } else {
        cell(row, 3, "refused");
        cell(row, 5, answer.message || words(answer.status, answer.body, answer.retry));
        row.classList.add("disputed");
      }
    }
    bar.hidden = true;
    input.value = "";
    poll();
  });
})();
// A text box marked data-enter-submits (a regrade request, its answer): Enter sends the form,
// Shift+Enter starts a new line.
for (const box of document.querySelectorAll("textarea[data-enter-submits]")) {
  box.addEventListener("keydown", (event) => {
    if (event.key !== "Enter" || event.shiftKey || event.isComposing) return;
    event.preventDefault();
    if (box.form.reportValidity()) box.form.requestSubmit();
  });
}
// A box that scrolls (a long answer, a wide table on a phone) takes keyboard focus when nothing
// inside it can, so that the arrow keys scroll it (WCAG 2.1.1); checked again on a resize, since
// a table scrolls only on a narrow screen. Only the tabindex set here is ever taken away.
(function () {
  const BOXES = "main .doc, main pre, main .scroll, main .wide, main .warning, main table";
  const CONTROLS = "a[href], button, input, select, textarea, summary, [tabindex]";
  const scrolls = (el, axis) => {
    const style = getComputedStyle(el);
    const overflow = axis === "x" ? style.overflowX : style.overflowY;
    const more = axis === "x" ? el.scrollWidth - el.clientWidth : el.scrollHeight - el.clientHeight;
    return (overflow === "auto" || overflow === "scroll") && more > 1;
  };
  function mark() {
    for (const box of document.querySelectorAll(BOXES)) {
      const own = box.hasAttribute("data-scroll-focus");
      if (box.hasAttribute("tabindex") && !own) continue;
      const needs = (scrolls(box, "x") || scrolls(box, "y")) && !box.querySelector(CONTROLS);
      if (needs && !own) {
        box.setAttribute("tabindex", "0");
        box.setAttribute("data-scroll-focus", "");
      } else if (!needs && own) {
        box.removeAttribute("tabindex");
        box.removeAttribute("data-scroll-focus");
      }
    }
  }
  mark();
  window.addEventListener("resize", mark);
  window.addEventListener("load", mark);
})();
