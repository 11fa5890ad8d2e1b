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
  wire("form[data-dispute]", function (form) {
    var chosen = form.querySelector("input[name=reason]:checked");
    if (!chosen) throw new Error("Tell us what is wrong with this charge.");
    return api("POST", "/api/statements/" + form.dataset.dispute + "/disputes",
               { line_id: form.dataset.line, reason: chosen.value, note: value(form, "note") })
      .then(function (data) { go(data.url, "dispute"); });
  }, "We couldn't send your dispute. Please try again.");

  /* Paying: the full balance, or another amount typed in dollars (its field shows only when chosen). */
  document.querySelectorAll("form[data-pay]").forEach(function (form) {
    var other = form.querySelector("[data-other-amount]");
    form.querySelectorAll("input[name=amount_kind]").forEach(function (radio) {
      radio.addEventListener("change", function () {
        other.hidden = form.querySelector("input[name=amount_kind]:checked").value !== "other";
      });
    });
  });

  wire("form[data-pay]", function (form) {
    var kind = form.querySelector("input[name=amount_kind]:checked").value;
    var cents = Number(form.dataset.balance);
    if (kind === "other") {
      var typed = value(form, "amount").replace(/[$,\s]/g, "");
      if (!/^\d+(\.\d{1,2})?$/.test(typed)) throw new Error("Type the amount in dollars, e.g. 25.00.");
      cents = Math.round(Number(typed) * 100);
    }
    if (!value(form, "card_id")) throw new Error("Choose a card to pay with.");
    var status = form.querySelector("[data-status]");
    // the card's bank authorises the payment before it is recorded: say so while it does
    var call = api("POST", "/api/statements/" + form.dataset.pay + "/payments",
                   { amount_cents: cents, card_id: value(form, "card_id") });
    status.textContent = "Processing your payment…";
    return call.then(function (data) { go(data.url, "paid"); },
                     function (error) { status.textContent = ""; throw error; });
  }, "We couldn't take your payment. Please try again.");
  /* A section shown only when a choice asks for it (the page shows it to readers without scripts). */
  document.querySelectorAll("[data-conditional]").forEach(function (box) {
    var form = box.closest("form");
    var trigger = form.querySelector("[data-reveals='" + box.id + "']");
    function sync() { box.hidden = !trigger.checked; }
    form.querySelectorAll("input[name='" + trigger.name + "']").forEach(function (radio) {
      radio.addEventListener("change", sync);
    });
    sync();
  });

  wire("form[data-check-in]", function (form) {
    if (!value(form, "located_in")) throw new Error("Tell us where you are right now.");
    var chosen = form.querySelector("input[name=new_symptoms]:checked");
    return api("POST", "/api/appointments/" + form.dataset.checkIn + "/check-in", {
      located_in: value(form, "located_in"), callback_phone: value(form, "callback_phone"),
      new_symptoms: chosen.value === "yes", symptoms: chosen.value === "yes" ? value(form, "symptoms") : "",
      consent: form.elements.consent.checked
    }).then(function (data) { go(data.url, "checked_in"); });
  }, "We couldn't check you in. Please try again.");

  /* The waiting room asks every moment whether the nurse has admitted the patient, then offers to join. */
  document.querySelectorAll("[data-waiting-room]").forEach(function (room) {
    var status = room.querySelector("[data-wait-status]");
    var join = room.querySelector("button[data-join]");
    function check() {
      if (!join.hidden) return;
      api("GET", "/api/appointments/" + room.dataset.waitingRoom + "/waiting").then(function (data) {
        if (data.admitted) {
          status.textContent = data.nurse + " has admitted you. Join when you're ready.";
          join.hidden = false;
        } else {
          window.setTimeout(check, 1500);
        }
      }, function () { window.setTimeout(check, 3000); });
    }
    window.setTimeout(check, 1500);
    join.addEventListener("click", function () {
      join.disabled = true;
      api("POST", "/api/appointments/" + join.dataset.join + "/join")
        .then(function (data) { go(data.url); })
        .catch(fail(join, "We couldn't connect you. Please try again."));
    });
  });
  /* A card photo is uploaded (and checked) as soon as it is chosen. */
  document.querySelectorAll("input[type=file][data-card-photo]").forEach(function (input) {
    var status = document.getElementById("photo-status-" + input.dataset.cardPhoto);
    input.addEventListener("change", function () {
      var file = input.files && input.files[0];
      if (!file) { status.textContent = ""; return; }
      status.textContent = "Uploading " + file.name + "…";
      var reader = new FileReader();
      reader.onload = function () {
        var data = String(reader.result).split(",")[1] || "";
        api("POST", "/api/profile/insurance/" + input.dataset.cardPhoto + "/photo",
            { name: file.name, content_type: file.type || "image/png", data: data })
          .then(function (made) { status.textContent = made.photo.name + " added to this card"; })
          .catch(function (error) {
            var detail = error && error.data && error.data.detail;
            status.textContent = "Could not upload " + file.name + (typeof detail === "string" ? ": " + detail : "");
          });
      };
      reader.onerror = function () { status.textContent = "Could not read " + file.name; };
      reader.readAsDataURL(file);
    });
  });
  wire("form[data-proxy]", function (form) {
    var scope = form.querySelector("input[name=scope]:checked").value;
    var areas = [];
    form.querySelectorAll("input[name=areas]:checked").forEach(function (box) { areas.push(box.value); });
    if (scope === "limited" && !areas.length) throw new Error("Choose what they can see.");
    return api("POST", "/api/profile/proxies", {
      name: value(form, "name"), email: value(form, "email"), relationship: value(form, "relationship"),
      scope: scope, areas: scope === "limited" ? areas : [], ends_on: value(form, "ends_on"),
      understood: form.elements.understood.checked
    }).then(function () { go("/profile/proxies", "granted"); });
  }, "We couldn't give access. Please try again.");

  /* Revoking asks once more, in place, before it acts. */
  document.querySelectorAll("[data-revoke-box]").forEach(function (box) {
    var ask = box.querySelector("[data-revoke-ask]");
    var confirm = box.querySelector("[data-revoke-confirm]");
    var yes = box.querySelector("button[data-revoke]");
    ask.addEventListener("click", function () { ask.hidden = true; confirm.hidden = false; });
    box.querySelector("[data-revoke-cancel]").addEventListener("click", function () {
      confirm.hidden = true; ask.hidden = false;
    });
    yes.addEventListener("click", function () {
      yes.disabled = true;
      api("DELETE", "/api/profile/proxies/" + yes.dataset.revoke)
        .then(function () { go("/profile/proxies", "revoked"); })
        .catch(fail(yes, "We couldn't revoke access. Please try again."));
    });
  });
  document.querySelectorAll("button[data-remove-photo]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      api("DELETE", "/api/profile/insurance/" + button.dataset.removePhoto + "/photo")
        .then(function () { go("/profile", "photo_removed"); })
        .catch(fail(button, "We couldn't remove the photo. Please try again."));
    });
  });
  wire("form[data-plan]", function (form) {
    var months = form.querySelector("input[name=months]:checked");
    if (!months) throw new Error("Choose how many months.");
    if (!value(form, "card_id")) throw new Error("Choose a card to pay with.");
    return api("POST", "/api/statements/" + form.dataset.plan + "/plan", {
      months: Number(months.value), card_id: value(form, "card_id"),
      first_payment_on: value(form, "first_payment_on"), agreed: form.elements.agreed.checked
    }).then(function (data) { go(data.url, "plan"); });
  }, "We couldn't set up your payment plan. Please try again.");
})();
