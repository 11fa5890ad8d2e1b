/* form_reset: the click that commits lands as the page re-renders its form: every text field the agent
   changed is back to what the page first showed (blank, or the site's own prefill) and the click does
   nothing. The agent must notice its input is gone and type it again before committing. */

var RESET_TYPES = ["text", "email", "tel", "url", "number", "search", "password", "date", "time",
                   "datetime-local", "month", "week"];

function typedFields(scope) {
  var found = [];
  var fields = scope.querySelectorAll("input, textarea");
  for (var i = 0; i < fields.length; i++) {
    var f = fields[i];
    var kind = (f.getAttribute("type") || "text").toLowerCase();
    if (f.tagName === "INPUT" && RESET_TYPES.indexOf(kind) < 0) { continue; }
    if (f.disabled || f.readOnly || f.value === f.defaultValue) { continue; }
    found.push(f);
  }
  return found;
}

RUNNERS.form_reset = function (fault, el) {
  var p = fault.params;
  var resets = 0;
  var stop = interceptClicks(el, function () {
    var scope = el.form || el.closest("form") || D.body;
    var fields = typedFields(scope);
    if (!fields.length) { return false; }  /* nothing typed to lose: the click goes through */
    fields.forEach(function (f) {
      f.value = f.defaultValue;  /* as the page rendered it: what was typed is lost, a prefill comes back */
      f.dispatchEvent(new Event("input", {bubbles: true}));
      f.dispatchEvent(new Event("change", {bubbles: true}));
    });
    resets += 1;
    if (resets >= p.times) { stop(); }
    report(fault, "fired", {occurrence: resets, touched: describe(el), info: {cleared: fields.length}});
    return true;  /* the click is lost with the re-render */
  });
};
