// Live progress of an evaluation run: polls the run's API URL, updates the bar, the counts
// and the estimate of the time left, and reloads the page (with its report) when it ends.
(function () {
  "use strict";
  // Words from Django's JavaScript catalog (/jsi18n/<language>/), loaded before this file.
  const { gettext, ngettext, interpolate } = window;
  const STATE = {
    queued: gettext("Queued"),
    running: gettext("Running"),
    succeeded: gettext("Succeeded"),
    failed: gettext("Failed"),
    cancelled: gettext("Cancelled"),
  };
  const number = (n) => n.toLocaleString(document.documentElement.lang || undefined);
  const box = document.querySelector(".run-progress[data-progress-url]");
  if (!box || ["succeeded", "failed", "cancelled"].includes(box.dataset.state)) return;
  const bar = box.querySelector(".progress > span");
  const meter = box.querySelector(".progress");
  const field = (name) => box.querySelector(`[data-field="${name}"]`);

  function duration(seconds) {
    if (seconds === null || seconds === undefined) return "";
    if (seconds < 60) {
      return interpolate(gettext("about %s s left"), [Math.max(1, Math.round(seconds))]);
    }
    if (seconds < 3600) return interpolate(gettext("about %s min left"), [Math.round(seconds / 60)]);
    return interpolate(gettext("about %s h left"), [(seconds / 3600).toFixed(1)]);
  }

  async function poll() {
    let data;
    try {
      const response = await fetch(box.dataset.progressUrl, {
        headers: { Accept: "application/json" },
        credentials: "same-origin",
      });
      if (!response.ok) throw new Error(String(response.status));
      data = await response.json();
    } catch (error) {
      setTimeout(poll, 3000);
      return;
    }
    const p = data.progress;
    const pct = Math.round((p.progress || 0) * 100);
    bar.style.width = pct + "%";
    meter.setAttribute("aria-valuenow", String(pct));
    const state = field("state");
    state.textContent = STATE[data.state] || data.state;
    state.className = `badge state-${data.state}`;
    field("figures").textContent =
      interpolate(
        ngettext("%(done)s of %(total)s query", "%(done)s of %(total)s queries", p.total),
        { done: number(p.done), total: number(p.total) },
        true,
      ) + (p.failed ? interpolate(gettext(", %s failed"), [number(p.failed)]) : "");
    field("eta").textContent = data.state === "running" ? duration(p.seconds_left) : "";
    if (["succeeded", "failed", "cancelled"].includes(data.state)) {
      window.location.reload();
      return;
    }
    setTimeout(poll, 1000);
  }
  poll();
})();
