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

/* ---- private messages: send; while a member's answer is due, wait for it and show it ----------------- */
(function () {
  "use strict";

  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;
  var here = window.location.pathname + window.location.search;

  document.querySelectorAll("form[data-message]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var submit = form.querySelector("button[type=submit]");
      var box = document.querySelector("main [data-alert]");
      submit.disabled = true;
      api("POST", "/api/messages/" + form.dataset.message, { body: form.elements.body.value })
        .then(function () { go(here, "message_sent"); })
        .catch(function (error) {
          submit.disabled = false;
          if (box) { box.textContent = reason(error, "Your message could not be sent — try again"); box.hidden = false; }
        });
    });
  });

  var awaiting = document.querySelector("[data-awaiting]");
  if (awaiting) {
    api("POST", "/api/messages/" + awaiting.dataset.awaiting + "/arrivals")
      .then(function (data) {
        if (data.arrived.length) go(here, "message_arrived");
        else awaiting.setAttribute("aria-busy", "false");
      })
      .catch(function () { awaiting.setAttribute("aria-busy", "false"); });
  }
})();
