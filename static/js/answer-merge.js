// Goldsmith review page: the lead merges the annotators' reference answers and key facts into
// the query's answer key. "Use this answer" copies an annotator's answer, type and choices into
// the form; "Take this fact" adds the fact with its chunks as a row the lead can edit. Without
// this script the form still works: the lead types the fields.
(function () {
  "use strict";

  const gettext = window.gettext;
  const form = document.getElementById("answer-key-form");
  if (!form) return;
  const list = document.getElementById("merge-facts");

  function wire(row) {
    row.querySelector(".remove-fact").addEventListener("click", function () {
      row.remove();
    });
  }

  function addRow(text, chunks) {
    // Fill the first empty row, else add one at the end.
    const rows = Array.from(list.querySelectorAll(".fact-row"));
    let row = rows.find(function (r) {
      return !r.querySelector("input[name=fact-text]").value.trim() &&
        !r.querySelector("input[name=fact-chunks]").value.trim();
    });
    if (!row) {
      row = document.createElement("li");
      row.className = "fact-row";
      const t = document.createElement("input");
      t.type = "text";
      t.name = "fact-text";
      t.setAttribute("aria-label", gettext("Key fact"));
      const c = document.createElement("input");
      c.type = "text";
      c.name = "fact-chunks";
      c.setAttribute("aria-label", gettext("Chunk ids"));
      const remove = document.createElement("button");
      remove.type = "button";
      remove.className = "remove-fact";
      remove.textContent = gettext("Remove");
      row.append(t, " ", c, " ", remove);
      list.appendChild(row);
      wire(row);
    }
    row.querySelector("input[name=fact-text]").value = text;
    row.querySelector("input[name=fact-chunks]").value = chunks;
    return row;
  }

  list.querySelectorAll(".fact-row").forEach(wire);
  document.getElementById("add-merge-fact").addEventListener("click", function () {
    addRow("", "").querySelector("input[name=fact-text]").focus();
  });
  document.querySelectorAll(".use-answer").forEach(function (button) {
    button.addEventListener("click", function () {
      form.elements.reference_answer.value = button.dataset.answer;
      form.elements.answer_type.value = button.dataset.type;
      form.elements.choices.value = button.dataset.choices;
    });
  });
  document.querySelectorAll(".take-fact").forEach(function (button) {
    button.addEventListener("click", function () {
      addRow(button.dataset.text, button.dataset.chunks);
      button.disabled = true;
      button.textContent = gettext("Taken");
    });
  });
})();
