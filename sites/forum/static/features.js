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

/* ---- a copy of your data; attachments ------------------------------------------------------------ */
(function () {
  "use strict";

  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;
  var here = window.location.pathname + window.location.search;

  document.querySelectorAll("[data-export]").forEach(function (panel) {
    var button = panel.querySelector("button[data-export-request]");
    var status = panel.querySelector("[data-export-status]");
    if (!button) return;
    button.addEventListener("click", function () {
      button.disabled = true;
      panel.setAttribute("aria-busy", "true");
      status.textContent = "Preparing your data…";
      api("POST", "/api/export")
        .then(function (data) {
          var link = document.createElement("a");
          link.className = "btn btn-outline";
          link.href = data.download;
          link.setAttribute("download", "");
          link.textContent = "Download your data";
          button.replaceWith(link);
          status.textContent = "Your data is ready.";
          panel.setAttribute("aria-busy", "false");
        })
        .catch(function (error) {
          button.disabled = false;
          panel.setAttribute("aria-busy", "false");
          status.textContent = reason(error, "Your data could not be prepared — try again");
        });
    });
  });

  document.querySelectorAll("button[data-attach]").forEach(function (button) {
    var input = document.querySelector('input[data-attach-input="' + button.dataset.attach + '"]');
    var box = document.querySelector("main [data-alert]");
    button.addEventListener("click", function () { input.click(); });
    input.addEventListener("change", function () {
      var file = input.files && input.files[0];
      if (!file) return;
      var reader = new FileReader();
      button.disabled = true;
      reader.onload = function () {
        var data = String(reader.result).split(",")[1] || "";
        var type = file.type === "image/png" ? "image/png" : "text/plain";
        api("POST", "/api/posts/" + button.dataset.attach + "/attachments", { name: file.name, content_type: type, data: data })
          .then(function () { go(here, "attached", button.dataset.attach); })
          .catch(function (error) {
            button.disabled = false;
            input.value = "";
            if (box) { box.textContent = reason(error, "The file could not be attached — try again"); box.hidden = false; }
          });
      };
      reader.readAsDataURL(file);
    });
  });
})();

/* ---- closing your question as a duplicate ---------------------------------------------------------- */
(function () {
  "use strict";

  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;

  document.querySelectorAll("form[data-close]").forEach(function (form) {
    var box = document.querySelector("main [data-alert]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var chosen = form.querySelector("input[name=duplicate_of]:checked");
      var submit = form.querySelector("button[type=submit]");
      if (!chosen) {
        if (box) { box.textContent = "Choose the question yours duplicates."; box.hidden = false; }
        return;
      }
      submit.disabled = true;
      api("POST", "/api/questions/" + form.dataset.close + "/close", { duplicate_of: chosen.value })
        .then(function () { go("/questions/" + form.dataset.close, "closed"); })
        .catch(function (error) {
          submit.disabled = false;
          if (box) { box.textContent = reason(error, "The question could not be closed — try again"); box.hidden = false; }
        });
    });
  });
})();

/* ---- the review queue ------------------------------------------------------------------------------- */
(function () {
  "use strict";

  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;

  document.querySelectorAll("form[data-review]").forEach(function (form) {
    var box = document.querySelector("main [data-alert]");
    form.querySelectorAll("button[data-decision]").forEach(function (button) {
      button.addEventListener("click", function () {
        var decision = button.dataset.decision;
        var why = form.elements.reason.value;
        if (decision === "reject" && !why) {
          if (box) { box.textContent = "Choose a reason for rejecting the edit."; box.hidden = false; }
          return;
        }
        button.disabled = true;
        api("POST", "/api/suggested-edits/" + form.dataset.review + "/review",
            decision === "reject" ? { decision: decision, reason: why } : { decision: decision })
          .then(function () { go("/review", decision === "approve" ? "edit_approved" : "edit_rejected"); })
          .catch(function (error) {
            button.disabled = false;
            if (box) { box.textContent = reason(error, "Your review could not be saved — try again"); box.hidden = false; }
          });
      });
    });
  });
})();

/* ---- suggesting an edit to someone else's answer (it goes to the review queue) ------------------------ */
(function () {
  "use strict";

  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;

  document.querySelectorAll("form[data-suggest-edit]").forEach(function (form) {
    var box = form.querySelector("[data-alert]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var id = form.dataset.suggestEdit;
      var submit = form.querySelector("button[type=submit]");
      if (box) box.hidden = true;
      submit.disabled = true;
      api("POST", "/api/answers/" + id + "/suggested-edits",
          { body: form.elements.body.value, summary: form.elements.summary.value })
        .then(function () { go("/questions/" + form.dataset.question, "edit_suggested", id); })
        .catch(function (error) {
          submit.disabled = false;
          if (box) { box.textContent = reason(error, "Your edit could not be sent — try again"); box.hidden = false; }
        });
    });
  });
})();
