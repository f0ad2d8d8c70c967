// Goldsmith annotation page: keyboard-first grading with a durable retry queue.
//
// Every change (a grade, the flags, the note, time spent) becomes an entry of an outbox kept in
// localStorage. One request is in flight at a time, so changes reach the server in order. An
// entry leaves the outbox only when the server confirmed it, and only then does the page say
// "saved". When the network fails the entry stays, the page says "waiting", and sending resumes
// with backoff and on the browser's "online" event — also after a reload.
(function () {
  "use strict";

  // Words come from Django's JavaScript catalog (/jsi18n/<language>/), loaded before this file.
  const gettext = window.gettext;
  const ngettext = window.ngettext;
  const interpolate = window.interpolate;

  const root = document.getElementById("annotate");
  if (!root) return;

  const apiBase = root.dataset.apiBase; // "/api/v1/projects/<id>/"
  const queryId = root.dataset.queryId;
  const nextUrl = root.dataset.nextUrl;
  const locked = root.dataset.locked === "1";
  const judgingOrder = root.dataset.order || ""; // "likely" or "plain", recorded with each grade
  const storageKey = "goldsmith:outbox:" + root.dataset.userId + ":" + apiBase;
  const syncStatus = document.getElementById("sync-status");
  const judgedCount = document.getElementById("judged-count");
  const cards = Array.from(document.querySelectorAll(".candidate[data-candidate-id]"));
  let focusIndex = 0;

  function csrfToken() {
    const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
    return match ? decodeURIComponent(match[1]) : root.dataset.csrf;
  }

  // --- Outbox ---------------------------------------------------------------------------------
  // entries: key -> {url, body, seq}; "grade:<candidate>" or "query:<query>".
  let outbox = loadOutbox();
  let seq = Date.now();
  let sending = false;
  let retryDelay = 1000;
  let retryTimer = null;

  function loadOutbox() {
    try {
      return JSON.parse(localStorage.getItem(storageKey) || "{}") || {};
    } catch (e) {
      return {};
    }
  }

  function persist() {
    try {
      localStorage.setItem(storageKey, JSON.stringify(outbox));
    } catch (e) {
      /* storage full or disabled: the in-memory outbox still retries while the page is open */
    }
  }

  function enqueue(key, url, body, merge) {
    const previous = outbox[key];
    const merged = previous && merge ? merge(previous.body, body) : body;
    outbox[key] = { url: url, body: merged, seq: ++seq };
    persist();
    showSync();
    pump();
  }

  // The annotator's changes: grades, flags and the note. Time reports go unmentioned.
  function isChange(key) {
    return !key.startsWith("time:");
  }

  function pending() {
    return Object.keys(outbox).filter(isChange).length;
  }

  // Until a change of the annotator's reaches the server the page says nothing about saving:
  // a freshly opened query has nothing to be "saved".
  let savedAny = false;

  function showSync(message) {
    const n = pending();
    if (message) {
      syncStatus.textContent = message;
      syncStatus.className = "sync sync-error";
    } else if (n === 0) {
      syncStatus.textContent = savedAny ? gettext("All changes saved") : "";
      syncStatus.className = savedAny ? "sync sync-ok" : "sync";
    } else if (retryTimer) {
      syncStatus.textContent = interpolate(
        ngettext(
          "%s change waiting for the network — retrying",
          "%s changes waiting for the network — retrying",
          n,
        ),
        [n],
      );
      syncStatus.className = "sync sync-waiting";
    } else {
      syncStatus.textContent = gettext("Saving…");
      syncStatus.className = "sync sync-saving";
    }
  }

  function scheduleRetry() {
    if (retryTimer) return;
    retryTimer = setTimeout(function () {
      retryTimer = null;
      pump();
    }, retryDelay);
    retryDelay = Math.min(retryDelay * 2, 15000);
    showSync();
  }

  async function pump() {
    if (sending) return;
    const keys = Object.keys(outbox).sort(function (a, b) {
      return outbox[a].seq - outbox[b].seq;
    });
    if (keys.length === 0) {
      showSync();
      return;
    }
    const key = keys[0];
    const entry = outbox[key];
    sending = true;
    let response = null;
    try {
      response = await fetch(entry.url, {
        method: "PUT",
        credentials: "same-origin",
        headers: {
          "Content-Type": "application/json",
          Accept: "application/json",
          "X-CSRFToken": csrfToken(),
        },
        body: JSON.stringify(entry.body),
        // A time report is often sent as the page unloads: keepalive lets it outlive the page.
        keepalive: key.startsWith("time:"),
      });
    } catch (e) {
      response = null; // offline or the server is unreachable
    }
    sending = false;
    if (response === null || response.status >= 500 || response.status === 429) {
      markEntry(key, "waiting");
      scheduleRetry();
      return;
    }
    retryDelay = 1000;
    if (response.status === 401 || response.status === 403) {
      // Signed out (session expired): keep every change in the outbox, stop sending, and let
      // the next page load (after signing in again) send them.
      markEntry(key, "error", null, gettext("sign in again — this grade is kept and sent afterwards"));
      showSync(gettext("Signed out: sign in again in this browser; unsaved changes are kept."));
      return;
    }
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    const current = outbox[key];
    if (current && current.seq === entry.seq) {
      delete outbox[key];
      persist();
    }
    if (response.ok) {
      if (isChange(key)) savedAny = true;
      if (!current || current.seq === entry.seq) markEntry(key, "saved", data);
      if (key.startsWith("grade:")) refreshEstimate();
    } else {
      // 4xx: the change can never succeed (query closed, not yours, invalid); say so and drop it.
      const detail =
        (data && data.detail) ||
        fieldError(data) ||
        interpolate(gettext("refused (%s)"), [response.status]);
      markEntry(key, "error", null, detail);
      showSync(interpolate(gettext("Not saved: %s"), [detail]));
    }
    if (!response.ok) {
      setTimeout(pump, 0);
    } else {
      showSync();
      pump();
    }
  }

  // A refusal naming fields ({"reference_facts[1].chunk_ids[0]": ["..."]}): the first, in words.
  function fieldError(data) {
    if (!data || typeof data !== "object") return "";
    const field = Object.keys(data)[0];
    if (!field) return "";
    const said = Array.isArray(data[field]) ? data[field].join(" ") : String(data[field]);
    return field + ": " + said;
  }

  function markEntry(key, state, data, detail) {
    if (key.startsWith("answer:")) {
      markDraft(state, detail);
      return;
    }
    if (!key.startsWith("grade:")) return;
    const card = document.getElementById("cand-" + key.slice(6));
    if (!card) return;
    const label = card.querySelector(".save-state");
    label.classList.remove("is-saved", "is-waiting", "is-saving", "is-error");
    if (state === "saved") {
      label.textContent = gettext("saved");
      label.classList.add("is-saved");
      if (data && typeof data.judged === "number" && judgedCount) {
        judgedCount.textContent = String(data.judged);
      }
    } else if (state === "waiting") {
      label.textContent = gettext("not saved yet — waiting for the network");
      label.classList.add("is-waiting");
    } else if (state === "saving") {
      label.textContent = gettext("saving…");
      label.classList.add("is-saving");
    } else {
      label.textContent = interpolate(gettext("not saved: %s"), [detail]);
      label.classList.add("is-error");
    }
  }

  window.addEventListener("online", function () {
    if (retryTimer) {
      clearTimeout(retryTimer);
      retryTimer = null;
    }
    retryDelay = 1000;
    pump();
  });

  // --- Grades and focus -----------------------------------------------------------------------
  function setFocus(index, scroll) {
    if (cards.length === 0) return;
    focusIndex = Math.max(0, Math.min(cards.length - 1, index));
    cards.forEach(function (card, i) {
      card.classList.toggle("focused", i === focusIndex);
    });
    const card = cards[focusIndex];
    card.focus({ preventScroll: true });
    if (scroll !== false) {
      // The sticky query header is as tall as its query (a long one takes lines): the chunk's
      // scroll margin follows it, so that the chunk in focus is never under the header.
      const head = document.querySelector(".query-head");
      if (head) {
        document.documentElement.style.setProperty("--query-head-height", head.offsetHeight + "px");
      }
      card.scrollIntoView({ block: "nearest", behavior: "auto" });
    }
  }

  function showGrade(card, grade) {
    card.dataset.grade = String(grade);
    card.classList.add("graded");
    card.querySelectorAll("button.grade").forEach(function (button) {
      const chosen = button.dataset.grade === String(grade);
      button.classList.toggle("chosen", chosen);
      button.setAttribute("aria-pressed", chosen ? "true" : "false");
    });
  }

  // A query a lead adjudicated or approved is read-only: its page says why, a grade key
  // changes nothing and sends nothing, and j/k still move between chunks.
  function sayReadOnly() {
    syncStatus.textContent = gettext("Read-only: nothing was changed");
    syncStatus.className = "sync";
  }

  function grade(card, value) {
    if (locked) {
      sayReadOnly();
      return;
    }
    const id = card.dataset.candidateId;
    showGrade(card, value);
    markEntry("grade:" + id, "saving");
    // A candidate drawn at random for the stop estimate records "check" as its order.
    const order = card.classList.contains("is-check") ? "check" : judgingOrder;
    const body = order ? { grade: value, order: order } : { grade: value };
    enqueue("grade:" + id, apiBase + "candidates/" + id + "/judgment/", body);
    // A chunk graded not relevant can support no key fact (the server refuses such a link, and
    // would refuse every later save of the draft): its links go with the new grade.
    if (value === 0) unlinkChunk(card);
  }

  cards.forEach(function (card, index) {
    card.addEventListener("click", function (event) {
      const button = event.target.closest("button.grade");
      setFocus(index, false);
      if (button) grade(card, Number(button.dataset.grade));
    });
  });

  // Re-apply grades that were waiting in the outbox when the page was last closed.
  Object.keys(outbox).forEach(function (key) {
    if (!key.startsWith("grade:")) return;
    const card = document.getElementById("cand-" + key.slice(6));
    if (card) {
      showGrade(card, outbox[key].body.grade);
      markEntry(key, "waiting");
    }
  });

  // --- Flags, note, time spent ----------------------------------------------------------------
  const annotationUrl = apiBase + "queries/" + queryId + "/annotation/";
  const queryKey = "query:" + queryId;

  function mergeQuery(old, fresh) {
    const merged = Object.assign({}, old, fresh);
    merged.flags = Object.assign({}, old.flags || {}, fresh.flags || {});
    return merged;
  }

  const flagsForm = document.getElementById("query-flags");
  if (flagsForm && locked) {
    flagsForm.addEventListener("submit", function (event) {
      event.preventDefault();
    });
  } else if (flagsForm) {
    // Flags and the note save as they change; Enter in the form must not submit it.
    flagsForm.addEventListener("submit", function (event) {
      event.preventDefault();
    });
    flagsForm.querySelectorAll("input[type=checkbox]").forEach(function (box) {
      box.addEventListener("change", function () {
        const flags = {};
        flags[box.name] = box.checked;
        enqueue(queryKey, annotationUrl, { flags: flags }, mergeQuery);
      });
    });
    const note = document.getElementById("query-note");
    let noteTimer = null;
    note.addEventListener("input", function () {
      clearTimeout(noteTimer);
      noteTimer = setTimeout(function () {
        enqueue(queryKey, annotationUrl, { note: note.value }, mergeQuery);
      }, 600);
    });
    note.addEventListener("blur", function () {
      clearTimeout(noteTimer);
      enqueue(queryKey, annotationUrl, { note: note.value }, mergeQuery);
    });
  }

  // --- Reference answer and key facts (when the project asks annotators for them) -----------
  // The annotator's own draft answer key, saved whole through the outbox like a grade. A key
  // fact is linked to a chunk by selecting the fact ("f" adds one, "[" and "]" move) and
  // pressing "l" on a chunk graded relevant or partly relevant.
  const answers = root.dataset.answers === "1";
  const draftUrl = apiBase + "queries/" + queryId + "/answer-draft/";
  const draftKey = "answer:" + queryId;
  const draftAnswer = document.getElementById("draft-answer");
  const draftType = document.getElementById("draft-type");
  const draftChoices = document.getElementById("draft-choices");
  const choicesField = document.getElementById("draft-choices-field");
  const factList = document.getElementById("draft-facts");
  const noFacts = document.getElementById("no-facts");
  const draftStatus = document.getElementById("draft-status");
  const cardByChunk = {};
  cards.forEach(function (card) {
    cardByChunk[card.dataset.chunkId] = card;
  });
  let selectedFact = -1;
  let lastDraft = "";
  let draftTimer = null;

  function factItems() {
    return factList ? Array.from(factList.querySelectorAll("li.fact")) : [];
  }

  function chunksOf(li) {
    return (li.dataset.chunks || "").split(" ").filter(Boolean);
  }

  function badge(text) {
    const span = document.createElement("span");
    span.className = "badge";
    span.textContent = text;
    return span;
  }

  // Under each fact, the chunks it is linked to ("chunk 2"); on each chunk, its facts.
  function renderLinks() {
    cards.forEach(function (card) {
      const marks = card.querySelector(".fact-marks");
      if (marks) marks.textContent = "";
    });
    factItems().forEach(function (li, i) {
      const box = li.querySelector(".fact-links");
      box.textContent = "";
      chunksOf(li).forEach(function (cid) {
        const card = cardByChunk[cid];
        box.appendChild(
          badge(card ? interpolate(gettext("chunk %s"), [card.dataset.index]) : cid),
        );
        const marks = card && card.querySelector(".fact-marks");
        if (marks) marks.appendChild(badge(interpolate(gettext("fact %s"), [i + 1])));
      });
      li.classList.toggle("selected", i === selectedFact);
    });
    if (noFacts) noFacts.hidden = factItems().length > 0;
  }

  function draftBody() {
    const type = draftType.value || null;
    const body = {
      reference_answer: draftAnswer.value.trim() ? draftAnswer.value : null,
      answer_type: type,
      reference_facts: [],
    };
    if (type === "choice") {
      body.choices = draftChoices.value
        .split("\n")
        .map(function (line) {
          return line.trim();
        })
        .filter(Boolean);
    }
    // A fact without words is not sent (the server would refuse it): it stays on the page
    // while it is being written.
    factItems().forEach(function (li) {
      const text = li.querySelector(".fact-text").value;
      if (text.trim()) body.reference_facts.push({ text: text, chunk_ids: chunksOf(li) });
    });
    return body;
  }

  function saveDraft() {
    clearTimeout(draftTimer);
    if (locked || !answers) return;
    const body = draftBody();
    const json = JSON.stringify(body);
    if (json === lastDraft) return;
    lastDraft = json;
    markDraft("saving");
    enqueue(draftKey, draftUrl, body);
  }

  function saveDraftSoon() {
    clearTimeout(draftTimer);
    draftTimer = setTimeout(saveDraft, 600);
  }

  function markDraft(state, detail) {
    if (!draftStatus) return;
    draftStatus.classList.remove("sync-ok", "sync-waiting", "sync-saving", "sync-error");
    if (state === "saved") {
      draftStatus.textContent = gettext("Answer and facts saved");
      draftStatus.classList.add("sync-ok");
    } else if (state === "waiting") {
      draftStatus.textContent = gettext("not saved yet — waiting for the network");
      draftStatus.classList.add("sync-waiting");
    } else if (state === "saving") {
      draftStatus.textContent = gettext("saving…");
      draftStatus.classList.add("sync-saving");
    } else {
      draftStatus.textContent = interpolate(gettext("not saved: %s"), [detail]);
      draftStatus.classList.add("sync-error");
      lastDraft = ""; // the next change is sent again, whatever it is
    }
  }

  function selectFact(index) {
    const items = factItems();
    if (items.length === 0) {
      selectedFact = -1;
    } else {
      selectedFact = Math.max(0, Math.min(items.length - 1, index));
      items[selectedFact].scrollIntoView({ block: "nearest", behavior: "auto" });
    }
    renderLinks();
  }

  function wireFact(li) {
    const input = li.querySelector(".fact-text");
    input.addEventListener("focus", function () {
      selectedFact = factItems().indexOf(li);
      renderLinks();
    });
    if (locked) return;
    input.addEventListener("input", saveDraftSoon);
    input.addEventListener("blur", function () {
      if (!input.value.trim()) {
        // An empty fact is removed when it is left; the one before it stays selected.
        const at = factItems().indexOf(li);
        li.remove();
        selectedFact = Math.min(at, factItems().length - 1);
        renderLinks();
      }
      saveDraft();
    });
  }

  function addFact(text, chunks) {
    const li = document.createElement("li");
    li.className = "fact";
    li.dataset.chunks = (chunks || []).join(" ");
    const input = document.createElement("input");
    input.type = "text";
    input.className = "fact-text";
    input.value = text || "";
    input.setAttribute("aria-label", gettext("Key fact"));
    const links = document.createElement("span");
    links.className = "fact-links";
    li.append(input, links);
    factList.appendChild(li);
    wireFact(li);
    return li;
  }

  function newFact() {
    if (locked) {
      sayReadOnly();
      return;
    }
    const li = addFact("", []);
    selectedFact = factItems().indexOf(li);
    renderLinks();
    li.querySelector(".fact-text").focus();
  }

  // What a key did or why it did nothing, apart from the saving status (which a save rewrites).
  const draftHint = document.getElementById("draft-hint");

  function say(message) {
    draftHint.textContent = message;
  }

  // "l" on a chunk: link it to the selected fact, or unlink it when it already is.
  function toggleLink(card) {
    if (locked) {
      sayReadOnly();
      return;
    }
    const items = factItems();
    if (selectedFact < 0 || selectedFact >= items.length) {
      say(gettext("Select a key fact first: f adds one, [ and ] move between them."));
      return;
    }
    if (card.dataset.grade !== "1" && card.dataset.grade !== "2") {
      say(gettext("Grade this chunk relevant or partly relevant before linking it to a fact."));
      return;
    }
    const li = items[selectedFact];
    const chunks = chunksOf(li);
    const cid = card.dataset.chunkId;
    const at = chunks.indexOf(cid);
    const words = [card.dataset.index, selectedFact + 1];
    if (at === -1) {
      chunks.push(cid);
      say(interpolate(gettext("Chunk %s linked to fact %s."), words));
    } else {
      chunks.splice(at, 1);
      say(interpolate(gettext("Chunk %s unlinked from fact %s."), words));
    }
    li.dataset.chunks = chunks.join(" ");
    renderLinks();
    saveDraft();
  }

  function unlinkChunk(card) {
    if (locked || !answers) return;
    const cid = card.dataset.chunkId;
    let unlinked = false;
    factItems().forEach(function (li) {
      const chunks = chunksOf(li);
      const at = chunks.indexOf(cid);
      if (at !== -1) {
        chunks.splice(at, 1);
        li.dataset.chunks = chunks.join(" ");
        unlinked = true;
      }
    });
    if (!unlinked) return;
    say(
      interpolate(gettext("Chunk %s is now not relevant, so no key fact is linked to it."), [
        card.dataset.index,
      ]),
    );
    renderLinks();
    saveDraft();
  }

  function applyDraft(body) {
    draftAnswer.value = body.reference_answer || "";
    draftType.value = body.answer_type || "";
    draftChoices.value = (body.choices || []).join("\n");
    factItems().forEach(function (li) {
      li.remove();
    });
    (body.reference_facts || []).forEach(function (fact) {
      addFact(fact.text, fact.chunk_ids);
    });
  }

  if (answers && draftAnswer) {
    factItems().forEach(wireFact);
    if (outbox[draftKey]) {
      // A draft still waiting from the last visit is newer than the page.
      applyDraft(outbox[draftKey].body);
      markDraft("waiting");
    }
    lastDraft = JSON.stringify(draftBody());
    choicesField.hidden = draftType.value !== "choice";
    renderLinks();
    if (!locked) {
      draftAnswer.addEventListener("input", saveDraftSoon);
      draftAnswer.addEventListener("blur", saveDraft);
      draftChoices.addEventListener("input", saveDraftSoon);
      draftChoices.addEventListener("blur", saveDraft);
      draftType.addEventListener("change", function () {
        choicesField.hidden = draftType.value !== "choice";
        saveDraft();
      });
      document.getElementById("add-fact").addEventListener("click", newFact);
    }
  }

  // Time spent counts only while the page is visible. Each visit of the page has its own id
  // and reports its total so far; the server stores one total per visit, so a report sent as
  // the page unloads and sent again from the outbox after it (its answer never arrived) counts
  // once. A newer total replaces an older one still waiting in the outbox.
  const visitId = newVisitId();
  const timeKey = "time:" + queryId + ":" + visitId;
  let visitSeconds = 0;
  let visibleSince = document.visibilityState === "visible" ? Date.now() : null;

  function newVisitId() {
    const bytes = new Uint8Array(16);
    crypto.getRandomValues(bytes);
    return Array.from(bytes, function (b) {
      return b.toString(16).padStart(2, "0");
    }).join("");
  }

  function flushTime() {
    if (visibleSince === null || locked) return;
    visitSeconds += (Date.now() - visibleSince) / 1000;
    visibleSince = document.visibilityState === "visible" ? Date.now() : null;
    if (visitSeconds >= 1) {
      enqueue(timeKey, annotationUrl, { visit: visitId, seconds: visitSeconds });
    }
  }
  document.addEventListener("visibilitychange", function () {
    if (document.visibilityState === "visible") {
      visibleSince = Date.now();
    } else {
      flushTime();
      visibleSince = null;
    }
  });
  setInterval(flushTime, 60000);

  // --- Corpus search: annotators add chunks the retrievers missed -----------------------------
  const searchForm = document.getElementById("corpus-search");
  const results = document.getElementById("search-results");
  if (searchForm) {
    searchForm.addEventListener("submit", async function (event) {
      event.preventDefault();
      const q = searchForm.elements.q.value.trim();
      results.textContent = "";
      if (!q) return;
      const url = apiBase + "queries/" + queryId + "/search/?q=" + encodeURIComponent(q);
      let hits = [];
      try {
        const response = await fetch(url, { credentials: "same-origin" });
        hits = response.ok ? await response.json() : [];
      } catch (e) {
        hits = [];
      }
      if (hits.length === 0) {
        const li = document.createElement("li");
        li.className = "empty";
        li.textContent = gettext("No chunk found.");
        results.appendChild(li);
      }
      hits.forEach(function (hit) {
        const li = document.createElement("li");
        const title = document.createElement("strong");
        title.textContent = hit.document_title || hit.chunk_id;
        const text = document.createElement("p");
        text.className = "small";
        text.textContent = hit.text.length > 240 ? hit.text.slice(0, 240) + "…" : hit.text;
        const add = document.createElement("button");
        add.type = "button";
        add.textContent = gettext("Add to this query");
        add.addEventListener("click", async function () {
          add.disabled = true;
          const response = await fetch(apiBase + "queries/" + queryId + "/candidates/", {
            method: "POST",
            credentials: "same-origin",
            headers: { "Content-Type": "application/json", "X-CSRFToken": csrfToken() },
            body: JSON.stringify({ chunk_id: hit.chunk_id }),
          }).catch(function () {
            return null;
          });
          if (response && response.ok) {
            flushTime();
            window.location.reload();
          } else if (response && response.status >= 400 && response.status < 500) {
            // Refused (e.g. 409: a lead approved the query meanwhile): say why, in words.
            const body = await response.json().catch(function () {
              return {};
            });
            const reason = document.createElement("p");
            reason.className = "small sync-error";
            reason.setAttribute("role", "alert");
            reason.textContent =
              (body && (body.detail || (body.chunk_id && body.chunk_id[0]))) ||
              gettext("This chunk could not be added.");
            add.replaceWith(reason);
          } else {
            add.disabled = false;
            add.textContent = gettext("Could not add — try again");
          }
        });
        li.append(title, text, add);
        results.appendChild(li);
      });
    });
  }

  // --- Keyboard -------------------------------------------------------------------------------
  const help = document.getElementById("help-dialog");
  const guidelines = document.getElementById("guidelines-dialog");

  // "n" on a query with ungraded chunks says how many are left; a second "n" moves on.
  const nextHint = document.getElementById("next-hint");
  let warnedUngraded = false;

  function goNext() {
    const left = cards.filter(function (card) {
      return card.dataset.grade === undefined || card.dataset.grade === "";
    }).length;
    if (left > 0 && !locked && !warnedUngraded) {
      warnedUngraded = true;
      nextHint.textContent = interpolate(
        ngettext(
          "%s chunk of this query is not graded yet: grade it, or press n again to move on.",
          "%s chunks of this query are not graded yet: grade them, or press n again to move on.",
          left,
        ),
        [left],
      );
      return;
    }
    flushTime();
    window.location.href = nextUrl;
  }

  function toggle(dialog) {
    if (dialog.open) dialog.close();
    else dialog.showModal();
  }

  document.getElementById("next-query").addEventListener("click", goNext);
  document.getElementById("show-help").addEventListener("click", function () {
    toggle(help);
  });
  document.getElementById("show-guidelines").addEventListener("click", function () {
    toggle(guidelines);
  });

  document.addEventListener("keydown", function (event) {
    if (event.ctrlKey || event.metaKey || event.altKey) return;
    const target = event.target;
    if (
      target &&
      (target.tagName === "INPUT" || target.tagName === "TEXTAREA" || target.tagName === "SELECT")
    ) {
      if (event.key === "Escape") target.blur();
      return;
    }
    if (help.open || guidelines.open) {
      if (event.key === "?" && help.open) help.close();
      if (event.key === "g" && guidelines.open) guidelines.close();
      return;
    }
    const card = cards[focusIndex];
    switch (event.key) {
      case "0":
      case "1":
      case "2":
        if (!card) return;
        event.preventDefault();
        if (locked) {
          sayReadOnly();
          break;
        }
        grade(card, Number(event.key));
        if (!focusCheck() && focusIndex < cards.length - 1) setFocus(focusIndex + 1);
        break;
      case "s":
        if (!stopButton || stopButton.disabled) return;
        event.preventDefault();
        stopQuery();
        break;
      case "j":
      case "ArrowDown":
        event.preventDefault();
        setFocus(focusIndex + 1);
        break;
      case "k":
      case "ArrowUp":
        event.preventDefault();
        setFocus(focusIndex - 1);
        break;
      case "n":
        event.preventDefault();
        goNext();
        break;
      case "g":
        event.preventDefault();
        toggle(guidelines);
        break;
      case "?":
        event.preventDefault();
        toggle(help);
        break;
      default:
        if (answers && draftAnswer) answerKey(event, card);
        break;
    }
  });

  // --- Knowing when to stop -------------------------------------------------------------------
  // The estimate of relevant candidates still unjudged comes from the server after each saved
  // grade (it reads only this annotator's own grades). Candidates it draws at random are marked
  // "random check" and focused next; when the estimate allows it and the project does, the
  // annotator may finish the query there: what is left is "not judged (stopped)", never 0.
  const estimate = document.getElementById("stop-estimate");
  const stopButton = document.getElementById("stop-query");
  let estimateTimer = null;

  function showEstimate(data) {
    if (!estimate || !data) return;
    document.getElementById("stop-figure").textContent = data.summary;
    const draw = new Set((data.draw || []).map(String));
    cards.forEach(function (card) {
      const checking = draw.has(card.dataset.candidateId) && !card.dataset.grade;
      if (checking) card.classList.add("is-check");
      const badge = card.querySelector(".badge.check");
      if (badge) badge.hidden = !card.classList.contains("is-check");
    });
    if (stopButton) stopButton.disabled = !(data.may_stop && data.stopping_allowed) || locked;
    if (draw.size) focusCheck(); // the random checks are graded next
    estimate.dataset.mayStop = data.may_stop ? "1" : "0";
  }

  function refreshEstimate() {
    if (!estimate) return;
    clearTimeout(estimateTimer);
    estimateTimer = setTimeout(async function () {
      if (pending() > 0) return; // the last grade's save will ask again
      try {
        const response = await fetch(estimate.dataset.url, { credentials: "same-origin" });
        if (response.ok) showEstimate(await response.json());
      } catch (e) {
        /* offline: the estimate is shown again after the next saved grade */
      }
    }, 150);
  }

  // After a grade, go to the first random check still ungraded, if any; true when it did.
  function focusCheck() {
    const i = cards.findIndex(function (card) {
      return card.classList.contains("is-check") && !card.dataset.grade;
    });
    const here = cards[focusIndex];
    if (i < 0 || (here && here.classList.contains("is-check") && !here.dataset.grade)) {
      return false;
    }
    setFocus(i);
    return true;
  }

  async function stopQuery() {
    if (pending() > 0) return;
    const response = await fetch(estimate.dataset.url, {
      method: "POST",
      credentials: "same-origin",
      headers: { "X-CSRFToken": csrfToken() },
    });
    let data = null;
    try {
      data = await response.json();
    } catch (e) {
      data = null;
    }
    if (response.ok) {
      showEstimate(data);
      stopButton.disabled = true;
    } else {
      showSync(interpolate(gettext("Not saved: %s"), [(data && data.detail) || response.status]));
    }
  }

  if (stopButton) stopButton.addEventListener("click", stopQuery);

  // The keys of the reference answer and key facts.
  function answerKey(event, card) {
    switch (event.key) {
      case "a":
        event.preventDefault();
        draftAnswer.focus();
        break;
      case "t":
        event.preventDefault();
        draftType.focus();
        break;
      case "f":
        event.preventDefault();
        newFact();
        break;
      case "[":
        event.preventDefault();
        selectFact(selectedFact - 1);
        break;
      case "]":
        event.preventDefault();
        selectFact(selectedFact + 1);
        break;
      case "e": {
        const li = factItems()[selectedFact];
        if (!li) return;
        event.preventDefault();
        li.querySelector(".fact-text").focus();
        break;
      }
      case "l":
        if (!card) return;
        event.preventDefault();
        toggleLink(card);
        break;
      default:
        break;
    }
  }

  // Start on the first chunk without a grade.
  const firstOpen = cards.findIndex(function (card) {
    return card.dataset.grade === "";
  });
  setFocus(firstOpen === -1 ? 0 : firstOpen, firstOpen > 0);
  showSync();
  pump();
})();
