/* Threadline: small progressive scripts. Every write goes through the JSON API with fetch(). */
(function () {
  "use strict";

  /* the kit's helpers (kit.js, loaded before this script) */
  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;

  function here() {
    return window.location.pathname + window.location.search;
  }

  var pageAlert = document.querySelector("main [data-alert]");

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

  function clearAlert(box) {
    var target = box || pageAlert;
    if (target) { target.textContent = ""; target.hidden = true; }
  }

  /* ---- votes, acceptance, deletion ------------------------------------------------------------ */

  document.querySelectorAll("button[data-vote]").forEach(function (button) {
    button.addEventListener("click", function () {
      var wanted = Number(button.dataset.value);
      var value = Number(button.dataset.current) === wanted ? 0 : wanted;
      clearAlert();
      button.disabled = true;
      api("POST", "/api/posts/" + button.dataset.vote + "/vote", { value: value })
        .then(function () { go(here(), value ? "voted" : "unvoted", button.dataset.vote); })
        .catch(fail(null, button, "Your vote could not be recorded — try again"));
    });
  });

  document.querySelectorAll("button[data-accept]").forEach(function (button) {
    button.addEventListener("click", function () {
      var answer = button.dataset.accept || null;
      clearAlert();
      button.disabled = true;
      api("POST", "/api/questions/" + button.dataset.question + "/accept", { answer_id: answer })
        .then(function () { go(here(), answer ? "accepted" : "unaccepted", answer || ""); })
        .catch(fail(null, button, "Could not change the accepted answer — try again"));
    });
  });

  document.querySelectorAll("button[data-delete-post]").forEach(function (button) {
    button.addEventListener("click", function () {
      var id = button.dataset.deletePost;
      var isQuestion = button.dataset.kind === "question";
      clearAlert();
      button.disabled = true;
      api("DELETE", (isQuestion ? "/api/questions/" : "/api/answers/") + id)
        .then(function () { go(isQuestion ? "/" : here(), "deleted"); })
        .catch(fail(null, button, "Could not delete the post — try again"));
    });
  });

  document.querySelectorAll("button[data-delete-comment]").forEach(function (button) {
    button.addEventListener("click", function () {
      clearAlert();
      button.disabled = true;
      api("DELETE", "/api/comments/" + button.dataset.deleteComment)
        .then(function () { go(here(), "comment_deleted"); })
        .catch(fail(null, button, "Could not delete the comment — try again"));
    });
  });

  /* ---- flags -------------------------------------------------------------------------------- */

  document.querySelectorAll("form[data-flag]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var chosen = form.querySelector("input[name=reason]:checked");
      var submit = form.querySelector("button[type=submit]");
      var shown = document.querySelector("main [data-status]");
      if (shown) shown.textContent = "";
      clearAlert();
      if (!chosen) {
        fail(null, null, "")({ data: { detail: "Choose why this post should be looked at." } });
        return;
      }
      submit.disabled = true;
      api("POST", "/api/posts/" + form.dataset.flag + "/flags",
          { reason: chosen.value, note: form.querySelector("textarea[name=note]").value.trim() })
        .then(function () {
          // Stay here: the flag and its reason stay in view next to the thanks.
          submit.disabled = false;
          var status = document.querySelector("main [data-status]");
          if (status) status.textContent = "Thanks for flagging: a moderator will review it";
        })
        .catch(fail(null, submit, "Your flag could not be sent — try again"));
    });
  });

  /* ---- comments and answers ----------------------------------------------------------------- */

  document.querySelectorAll("form[data-comment]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var submit = form.querySelector("button[type=submit]");
      clearAlert();
      submit.disabled = true;
      api("POST", "/api/posts/" + form.dataset.comment + "/comments", { body: form.elements.body.value })
        .then(function () { go(here(), "commented", form.dataset.comment); })
        .catch(fail(null, submit, "Your comment could not be added — try again"));
    });
  });

  document.querySelectorAll("form[data-answer]").forEach(function (form) {
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var submit = form.querySelector("button[type=submit]");
      clearAlert();
      submit.disabled = true;
      api("POST", "/api/questions/" + form.dataset.answer + "/answers", { body: form.elements.body.value })
        .then(function (data) { go(here(), "answered", data.answer.id); })
        .catch(fail(null, submit, "Your answer could not be posted — try again"));
    });
  });

  /* ---- asking and editing ------------------------------------------------------------------- */

  document.querySelectorAll("form[data-question-form]").forEach(function (form) {
    var box = form.querySelector("[data-alert]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var id = form.dataset.questionForm;
      var submit = form.querySelector("button[type=submit]");
      var body = {
        title: form.elements.title.value,
        body: form.elements.body.value,
        tags: form.elements.tags.value.toLowerCase().split(/[\s,]+/).filter(Boolean)
      };
      if (id) body.summary = form.elements.summary.value;
      clearAlert(box);
      submit.disabled = true;
      api(id ? "PUT" : "POST", id ? "/api/questions/" + id : "/api/questions", body)
        .then(function (data) { go("/questions/" + data.question.id, id ? "edited" : "asked"); })
        .catch(fail(box, submit, "Your question could not be saved — try again"));
    });
  });

  document.querySelectorAll("form[data-answer-edit]").forEach(function (form) {
    var box = form.querySelector("[data-alert]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var id = form.dataset.answerEdit;
      var submit = form.querySelector("button[type=submit]");
      clearAlert(box);
      submit.disabled = true;
      api("PUT", "/api/answers/" + id, { body: form.elements.body.value, summary: form.elements.summary.value })
        .then(function () { go("/questions/" + form.dataset.question, "edited", id); })
        .catch(fail(box, submit, "Your edit could not be saved — try again"));
    });
  });

  /* ---- tags, notifications, settings -------------------------------------------------------- */

  document.querySelectorAll("button[data-follow]").forEach(function (button) {
    button.addEventListener("click", function () {
      var following = button.dataset.following !== "true";
      clearAlert();
      button.disabled = true;
      api("PUT", "/api/tags/" + encodeURIComponent(button.dataset.follow) + "/follow", { following: following })
        .then(function () { go(here(), following ? "followed" : "unfollowed"); })
        .catch(fail(null, button, "Could not change the tags you follow — try again"));
    });
  });

  document.querySelectorAll("button[data-read-all]").forEach(function (button) {
    button.addEventListener("click", function () {
      clearAlert();
      button.disabled = true;
      api("POST", "/api/notifications/read", { ids: button.dataset.readAll.split(",").filter(Boolean) })
        .then(function () { go(here(), "notifications_read"); })
        .catch(fail(null, button, "Could not mark the notifications as read — try again"));
    });
  });

  document.querySelectorAll("form[data-settings]").forEach(function (form) {
    var box = form.querySelector("[data-alert]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var submit = form.querySelector("button[type=submit]");
      var e = form.elements;
      var shown = document.querySelector("main [data-status]");
      if (shown) shown.textContent = "";
      clearAlert(box);
      submit.disabled = true;
      api("PUT", "/api/settings", {
        display_name: e.display_name.value, location: e.location.value, about: e.about.value,
        email_digest: e.email_digest.value, notify_on_answer: e.notify_on_answer.value === "on",
        notify_on_comment: e.notify_on_comment.value === "on", page_size: Number(e.page_size.value)
      })
        .then(function (data) {
          // Stay on the form (what was typed stays in it) and show what is now stored.
          submit.disabled = false;
          var saved = data.settings;
          document.querySelectorAll("[data-current]").forEach(function (el) {
            var value = saved[el.dataset.current];
            if (typeof value === "boolean") value = value ? "On" : "Off";
            else if (el.dataset.current === "email_digest") value = value.charAt(0).toUpperCase() + value.slice(1);
            else if (el.dataset.current === "location" && !value) value = "not set";
            el.textContent = String(value);
          });
          var status = document.querySelector("main [data-status]");
          if (status) status.textContent = "Settings saved";
        })
        .catch(fail(box, submit, "Your settings could not be saved — try again"));
    });
  });
})();
