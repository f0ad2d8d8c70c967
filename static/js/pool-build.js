// While a worker builds the pools, the pools page refreshes its build card (#pool-build) and its
// sources table (#pool-sources) from a fresh copy of itself, leaving the page's forms as they are.
(function () {
  "use strict";
  const parts = ["pool-build", "pool-sources"];
  async function poll() {
    const box = document.getElementById("pool-build");
    if (!box || box.dataset.running !== "true") return;
    try {
      const response = await fetch(window.location.href, { headers: { Accept: "text/html" } });
      if (response.ok) {
        const fresh = new DOMParser().parseFromString(await response.text(), "text/html");
        for (const id of parts) {
          const now = document.getElementById(id);
          const next = fresh.getElementById(id);
          if (now && next) now.replaceWith(next);
        }
      }
    } catch (error) {
      // The network: the next poll tries again.
    }
    setTimeout(poll, 1500);
  }
  setTimeout(poll, 1500);
})();
