/* The one write: "Mark done" calls the JSON API, then reloads the page with its notice. */
Kit.wire("form[data-mark-done]", function (form) {
  return Kit.api("POST", "/api/todos/" + form.dataset.todo + "/done")
    .then(function () { Kit.go(window.location.pathname, "done"); });
}, "Could not mark it done. Please try again.");
