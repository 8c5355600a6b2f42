// The console's one script: every few seconds it fetches the page again and swaps in the new
// content of the regions marked data-live (each has an id), so a page follows the market without
// a reload. Details left open stay open, and a region holding the focus is left alone until the
// focus moves out.
(function () {
  "use strict";
  var EVERY_MS = 2000;

  function openDetails() {
    return Array.prototype.map.call(document.querySelectorAll("details[open][id]"), function (d) {
      return d.id;
    });
  }

  function refresh() {
    fetch(window.location.href, { credentials: "same-origin" })
      .then(function (response) {
        if (!response.ok) {
          throw new Error("HTTP " + response.status);
        }
        return response.text();
      })
      .then(function (text) {
        var fresh = new DOMParser().parseFromString(text, "text/html");
        var open = openDetails();
        document.querySelectorAll("[data-live][id]").forEach(function (region) {
          var next = fresh.getElementById(region.id);
          if (next && !region.contains(document.activeElement)) {
            region.replaceWith(document.importNode(next, true));
          }
        });
        open.forEach(function (id) {
          var details = document.getElementById(id);
          if (details) {
            details.open = true;
          }
        });
        document.documentElement.dataset.refreshed = String(Date.now());
      })
      .catch(function () {
        // The server may be restarting: the next round tries again.
      })
      .finally(function () {
        window.setTimeout(refresh, EVERY_MS);
      });
  }

  if (document.querySelector("[data-live]")) {
    window.setTimeout(refresh, EVERY_MS);
  }
})();
