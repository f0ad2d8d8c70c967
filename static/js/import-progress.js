// Polls an import's API URL and updates its progress bar; reloads the page when it ends.
(function () {
  "use strict";
  // Words from Django's JavaScript catalog (/jsi18n/<language>/), loaded before this file.
  const { gettext, interpolate } = window;
  const STATUS = {
    queued: gettext("Queued"),
    running: gettext("Running"),
    done: gettext("Done"),
    failed: gettext("Failed"),
  };
  const number = (n) => n.toLocaleString(document.documentElement.lang || undefined);
  const box = document.querySelector(".import-progress[data-progress-url]");
  if (!box || ["done", "failed"].includes(box.dataset.status)) return;
  const bar = box.querySelector(".progress > span");
  const meter = box.querySelector(".progress");
  const field = (name) => box.querySelector(`[data-field="${name}"]`);
  // The phase's words are the page's (data-phase-reading="Reading the file"..., from
  // annotation.models.imports.PHASE_WORDS): the API gives the worker's code, which a reader
  // is never shown; an unknown code shows nothing.
  const phaseWords = (code) => {
    const key = "phase" + String(code || "").replace(/^./, (c) => c.toUpperCase());
    return /^[a-z]+$/.test(code || "") ? field("phase").dataset[key] || "" : "";
  };
  const mb = (bytes) => interpolate(gettext("%s MB"), [(bytes / 1e6).toFixed(1)]);

  async function poll() {
    let data;
    try {
      const response = await fetch(box.dataset.progressUrl, { headers: { Accept: "application/json" } });
      if (!response.ok) throw new Error(String(response.status));
      data = await response.json();
    } catch (error) {
      setTimeout(poll, 3000);
      return;
    }
    const pct = Math.round((data.progress || 0) * 100);
    bar.style.width = pct + "%";
    meter.setAttribute("aria-valuenow", String(pct));
    field("status").textContent = STATUS[data.status] || data.status;
    field("phase").dataset.phase = data.phase || "";
    field("phase").textContent = phaseWords(data.phase);
    field("figures").textContent =
      interpolate(
        gettext("%(percent)s of %(size)s"),
        { percent: pct + "%", size: mb(data.bytes_total || 0) },
        true,
      ) +
      (data.records
        ? " · " + interpolate(gettext("%s records"), [number(data.records)])
        : "");
    if (data.status === "done" || data.status === "failed") {
      window.location.reload();
      return;
    }
    setTimeout(poll, 700);
  }
  poll();
})();
