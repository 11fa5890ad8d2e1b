/* Lectern: every write goes through the JSON API with fetch(), then a page with a notice. */
(function () {
  "use strict";
  var api = window.Kit.api;
  var go = window.Kit.go;
  var fail = window.Kit.fail;
  var value = window.Kit.value;
  var wire = window.Kit.wire;
  var alertBox = document.querySelector("main [data-alert]");

  function here(notice) {
    go(window.location.pathname + window.location.search.replace(/([?&])notice=[^&]*&?/, "$1"), notice);
  }

  wire("form[data-submit]", function (form) {
    var body = { text: value(form, "text") };
    if (value(form, "file_id")) body.file_id = value(form, "file_id");
    if (!body.text && !body.file_id) throw new Error("Write something or attach a file first.");
    return api("POST", "/api/assignments/" + form.dataset.submit + "/submissions", body)
      .then(function (data) { go(data.url, "submitted"); });
  }, "We couldn't submit your work. Please try again.");

  wire("form[data-quiz]", function (form) {
    var answers = {};
    form.querySelectorAll("fieldset[data-question]").forEach(function (set) {
      var id = set.dataset.question;
      if (set.dataset.kind === "short") {
        var typed = value(form, id);
        answers[id] = typed ? [typed] : [];
      } else {
        answers[id] = Array.prototype.map.call(set.querySelectorAll("input:checked"), function (input) { return input.value; });
      }
    });
    return api("POST", "/api/quizzes/" + form.dataset.quiz + "/attempts", { answers: answers })
      .then(function (data) { go(data.url, "quiz"); });
  }, "We couldn't submit your quiz. Please try again.");

  wire("form[data-reply]", function (form) {
    return api("POST", "/api/topics/" + form.dataset.reply + "/posts", { body: value(form, "body"), reply_to: form.dataset.post })
      .then(function (data) { go(data.url, "posted"); });
  }, "Your reply could not be posted. Please try again.");

  wire("form[data-reminder]", function (form) {
    return api("POST", "/api/calendar/reminders", { title: value(form, "title"), date: value(form, "date") })
      .then(function (data) { go(data.url, "reminder"); });
  }, "We couldn't add the reminder. Please try again.");

  wire("form[data-grade]", function (form) {
    var raw = value(form, "score");
    var score = Number(raw);
    if (!raw || isNaN(score)) throw new Error("score: enter a number");
    return api("POST", "/api/submissions/" + form.dataset.grade + "/grade", { score: score, feedback: value(form, "feedback") })
      .then(function () { here("graded"); });
  }, "We couldn't save the grade. Please try again.");

  wire("form[data-announce]", function (form) {
    return api("POST", "/api/courses/" + form.dataset.announce + "/announcements", { title: value(form, "title"), body: value(form, "body") })
      .then(function (data) { go(data.url, "announced"); });
  }, "We couldn't post the announcement. Please try again.");

  document.querySelectorAll("button[data-done]").forEach(function (button) {
    button.addEventListener("click", function () {
      var done = button.dataset.value === "true";
      button.disabled = true;
      window.Kit.clear(alertBox, true);
      api("PUT", "/api/lessons/" + button.dataset.done + "/done", { done: done })
        .then(function () { here(done ? "done" : "undone"); })
        .catch(fail(button, "We couldn't update the lesson. Please try again."));
    });
  });

  document.querySelectorAll("button[data-remove-reminder]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      api("DELETE", "/api/calendar/reminders/" + button.dataset.removeReminder)
        .then(function () { here("reminder_removed"); })
        .catch(fail(button, "We couldn't remove the reminder. Please try again."));
    });
  });
})();
