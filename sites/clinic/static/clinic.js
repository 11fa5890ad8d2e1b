/* CareBridge: every write goes through the JSON API with fetch(), then a page with a notice. */
(function () {
  "use strict";
  var api = window.Kit.api;
  var go = window.Kit.go;
  var fail = window.Kit.fail;
  var value = window.Kit.value;
  var wire = window.Kit.wire;

  wire("form[data-book]", function (form) {
    return api("POST", "/api/appointments", { slot_id: form.dataset.book, visit_reason: value(form, "visit_reason") })
      .then(function (data) { go(data.url, "booked"); });
  }, "We couldn't book that time. Please try again.");

  wire("form[data-reschedule]", function (form) {
    var chosen = form.querySelector("input[name=slot_id]:checked");
    if (!chosen) throw new Error("Choose a new time first.");
    return api("POST", "/api/appointments/" + form.dataset.reschedule + "/reschedule", { slot_id: chosen.value })
      .then(function (data) { go(data.url, "rescheduled"); });
  }, "We couldn't move your appointment. Please try again.");

  wire("form[data-cancel]", function (form) {
    var chosen = form.querySelector("input[name=reason]:checked");
    if (!chosen) throw new Error("Tell us why you are cancelling.");
    return api("POST", "/api/appointments/" + form.dataset.cancel + "/cancel", { reason: chosen.value, note: value(form, "note") })
      .then(function (data) { go(data.url, "cancelled"); });
  }, "We couldn't cancel your appointment. Please try again.");

  wire("form[data-previsit]", function (form) {
    return api("POST", "/api/appointments/" + form.dataset.previsit + "/previsit", {
      symptoms: value(form, "symptoms"), symptoms_since: value(form, "symptoms_since"),
      allergies: value(form, "allergies"), insurance_card_id: value(form, "insurance_card_id"),
      medications_confirmed: form.elements.medications_confirmed.checked
    }).then(function (data) { go(data.url, "previsit"); });
  }, "We couldn't submit your form. Please try again.");

  wire("form[data-compose]", function (form) {
    if (!value(form, "provider_id")) throw new Error("Choose who the message is for.");
    var body = { provider_id: value(form, "provider_id"), subject: value(form, "subject"), body: value(form, "body") };
    if (form.dataset.result) body.result_id = form.dataset.result;
    return api("POST", "/api/messages", body).then(function (data) { go(data.url, "sent"); });
  }, "Your message could not be sent. Please try again.");

  wire("form[data-refill]", function (form) {
    if (!value(form, "pharmacy_id")) throw new Error("Choose a pharmacy.");
    return api("POST", "/api/medications/" + form.dataset.refill + "/refills",
               { pharmacy_id: value(form, "pharmacy_id"), note: value(form, "note") })
      .then(function () { go("/medications", "refill"); });
  }, "We couldn't send your refill request. Please try again.");

  wire("form[data-phone]", function (form) {
    return api("PUT", "/api/profile/phone", { phone: value(form, "phone") })
      .then(function () { go("/profile", "phone"); });
  }, "We couldn't save your phone number. Please try again.");

  wire("form[data-contact]", function (form) {
    return api("POST", "/api/profile/contacts", { name: value(form, "name"), relationship: value(form, "relationship"),
                                                  phone: value(form, "phone") })
      .then(function () { go("/profile", "contact_added"); });
  }, "We couldn't add the contact. Please try again.");

  document.querySelectorAll("button[data-remove-contact]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      api("DELETE", "/api/profile/contacts/" + button.dataset.removeContact)
        .then(function () { go("/profile", "contact_removed"); })
        .catch(fail(button, "We couldn't remove the contact. Please try again."));
    });
  });

  document.querySelectorAll("button[data-primary]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      api("PUT", "/api/profile/insurance/" + button.dataset.primary + "/primary")
        .then(function () { go("/profile", "primary"); })
        .catch(fail(button, "We couldn't change your primary insurance. Please try again."));
    });
  });
})();
