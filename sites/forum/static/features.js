/* Threadline's later features (bounties, …): every write goes through the JSON API with fetch(). */
(function () {
  "use strict";

  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;
  var pageAlert = document.querySelector("main [data-alert]");

  function here() {
    return window.location.pathname + window.location.search;
  }

  function fail(box, button, fallback) {
    return function (error) {
      if (button) button.disabled = false;
      var target = box || pageAlert;
      if (target) {
        target.textContent = reason(error, fallback);
        target.hidden = false;
        target.scrollIntoView({ block: "nearest" });
      }
    };
  }

  /* ---- bounties ------------------------------------------------------------------------------ */

  document.querySelectorAll("button[data-award]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      api("POST", "/api/questions/" + button.dataset.question + "/bounty/award", { answer_id: button.dataset.award })
        .then(function () { go(here(), "bounty_awarded", button.dataset.award); })
        .catch(fail(null, button, "The bounty could not be awarded — try again"));
    });
  });
})();
