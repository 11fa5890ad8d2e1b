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

  /* Upload a file from the computer: it is checked and kept as one of the user's files as soon as it is
     chosen, then picked in the "Attach a file" list; the form can't be sent while an upload runs. */
  document.querySelectorAll("form[data-submit] input[type=file][data-upload]").forEach(function (input) {
    var form = input.form;
    var status = document.getElementById("s-upload-status");
    var button = form.querySelector("button[type=submit]");
    var label = button.textContent;
    input.addEventListener("change", function () {
      var file = input.files && input.files[0];
      if (!file) return;
      button.disabled = true;
      button.textContent = "Uploading…";
      form.setAttribute("aria-busy", "true");
      status.textContent = "Uploading " + file.name + "…";
      function done() { button.disabled = false; button.textContent = label; form.setAttribute("aria-busy", "false"); }
      var reader = new FileReader();
      reader.onload = function () {
        var data = String(reader.result).split(",")[1] || "";
        var type = file.type || (/\.pdf$/i.test(file.name) ? "application/pdf" : /\.png$/i.test(file.name) ? "image/png" : "text/plain");
        api("POST", "/api/files", { name: file.name, content_type: type, data: data })
          .then(function (made) {
            var select = form.elements.file_id;
            var option = document.createElement("option");
            option.value = made.file.id;
            option.textContent = made.file.name;
            select.insertBefore(option, select.options[1] || null);
            select.value = made.file.id;
            status.textContent = made.file.name + " uploaded and attached";
          })
          .catch(function (error) { status.textContent = "Could not upload " + file.name + ": " + window.Kit.reason(error, "try again"); })
          .then(done);
      };
      reader.onerror = function () { status.textContent = "Could not read " + file.name; done(); };
      reader.readAsDataURL(file);
    });
  });

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

  wire("form[data-message-reply]", function (form) {
    return api("POST", "/api/messages/" + form.dataset.messageReply + "/replies", { body: value(form, "body") })
      .then(function (data) { go(data.url, "replied"); });
  }, "Your reply could not be sent. Please try again.");

  /* Compose: choosing the course shows the people in it (the page reloads with that course). */
  document.querySelectorAll("form[data-course-pick] select").forEach(function (select) {
    select.addEventListener("change", function () {
      window.location.assign("/inbox/new" + (select.value ? "?course=" + encodeURIComponent(select.value) : ""));
    });
  });

  wire("form[data-compose]", function (form) {
    var to = Array.prototype.map.call(form.querySelectorAll("input[name=to]:checked"), function (box) { return box.value; });
    if (!to.length) throw new Error("Choose at least one person to write to.");
    return api("POST", "/api/messages", { course_id: form.dataset.compose, recipient_ids: to,
                                          subject: value(form, "subject"), body: value(form, "body") })
      .then(function (data) { go(data.url, "sent"); });
  }, "Your message could not be sent. Please try again.");

  wire("form[data-regrade]", function (form) {
    if (!value(form, "criterion_id")) throw new Error("Choose the criterion to look at again.");
    return api("POST", "/api/submissions/" + form.dataset.regrade + "/regrades",
               { criterion_id: value(form, "criterion_id"), message: value(form, "message") })
      .then(function (data) { go(data.url, "regrade"); });
  }, "We couldn't send your request. Please try again.");

  wire("form[data-peer-review]", function (form) {
    var ratings = {};
    var missing = null;
    form.querySelectorAll("fieldset[data-criterion]").forEach(function (set) {
      var picked = set.querySelector("input:checked");
      if (picked) ratings[set.dataset.criterion] = picked.value;
      else if (!missing) missing = set.querySelector("legend").textContent;
    });
    if (missing) throw new Error("Rate every criterion first: " + missing + " has no rating.");
    return api("PUT", "/api/peer-reviews/" + form.dataset.peerReview, { ratings: ratings, comment: value(form, "comment") })
      .then(function (data) { go(data.url, "reviewed"); });
  }, "We couldn't submit your review. Please try again.");

  wire("form[data-extend]", function (form) {
    return api("POST", "/api/assignments/" + form.dataset.extend + "/extensions",
               { student_id: form.dataset.student, date: value(form, "date") })
      .then(function (data) { go(data.url, "extended"); });
  }, "We couldn't grant the extension. Please try again.");

  /* The grade report is put together on request; the download link appears when it is ready. */
  document.querySelectorAll("button[data-report]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      button.textContent = "Preparing report…";
      window.Kit.clear(alertBox, true);
      api("POST", "/api/courses/" + button.dataset.report + "/reports")
        .then(function () { here("report"); })
        .catch(function (error) {
          button.textContent = "Prepare grade report";
          fail(button, "We couldn't prepare the report. Please try again.")(error);
        });
    });
  });

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
