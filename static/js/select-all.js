// A "select all" checkbox: <input type="checkbox" data-selects="CSS selector"> ticks or clears
// every checkbox the selector names.
(function () {
  "use strict";
  document.querySelectorAll("input[type=checkbox][data-selects]").forEach(function (all) {
    all.addEventListener("change", function () {
      document.querySelectorAll(all.dataset.selects).forEach(function (box) {
        box.checked = all.checked;
      });
    });
  });
})();
