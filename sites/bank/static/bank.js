/* Meridian Bank: every write goes through the JSON API with fetch() (the kit's Kit.api). */
(function () {
  "use strict";

  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;

  function here() { return window.location.pathname + window.location.search.replace(/[?&]notice=[^&]*/, ""); }

  /* Where a write's answer sends the user: the page it names, unless it names none or only this page (where
     nothing of the write shows), then `fallback`, the page that shows the result. */
  function next(data, fallback) {
    var url = data && data.url;
    return url && window.Kit.withNotice(url, null) !== window.Kit.withNotice(here(), null) ? url : fallback;
  }

  function alertIn(root) { return (root && root.querySelector("[data-alert]")) || document.querySelector("main [data-alert]"); }

  function fail(root, button, fallback) {
    return function (error) {
      if (button) button.disabled = false;
      var box = alertIn(root);
      if (box) {
        box.textContent = reason(error, fallback);
        box.hidden = false;
        box.scrollIntoView({ block: "nearest" });
      }
    };
  }

  function start(root, button) {
    var box = alertIn(root);
    if (box) { box.textContent = ""; box.hidden = true; }
    var status = document.querySelector("main [data-status]");
    if (status) status.textContent = "";
    if (button) button.disabled = true;
  }

  function value(form, name) {
    var field = form.querySelector("[name=" + name + "]");
    return field ? field.value.trim() : "";
  }

  function checked(form, name) {
    var field = form.querySelector("input[name=" + name + "]:checked");
    return field ? field.value : "";
  }

  function onSubmit(selector, handler) {
    document.querySelectorAll(selector).forEach(function (form) {
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var button = form.querySelector("button[type=submit]");
        start(form, button);
        handler(form, button);
      });
    });
  }

  function onClick(selector, handler) {
    document.querySelectorAll(selector).forEach(function (button) {
      button.addEventListener("click", function () {
        var root = button.closest("article, section, form") || null;
        start(root, button);
        handler(button, root);
      });
    });
  }

  /* For the pages of the later features (later.js, loaded after this script where they are on). */
  window.Bank = { here: here, fail: fail, value: value, onSubmit: onSubmit, onClick: onClick };

  onSubmit("form[data-transfer]", function (form, button) {
    if (!value(form, "to_id")) {
      fail(form, button, "")({ data: { detail: "Choose who gets the money." } });
      return;
    }
    var today = form.querySelector("[name=date]").min;
    var date = value(form, "date");
    api("POST", "/api/transfers", {
      from_account_id: value(form, "from_account_id"), to_id: value(form, "to_id"), amount: value(form, "amount"),
      memo: value(form, "memo"), date: date === today ? "" : date, frequency: value(form, "frequency"),
      end_date: value(form, "frequency") === "once" ? "" : value(form, "end_date")
    }).then(function (data) {
      var scheduled = (date && date !== today) || value(form, "frequency") !== "once";
      go(next(data, scheduled ? "/payments?notice=scheduled" : "/accounts/" + value(form, "from_account_id") + "?notice=sent"));
    })
      .catch(fail(form, button, "The transfer could not be made. Nothing was sent."));
  });

  onSubmit("form[data-payee]", function (form, button) {
    api("POST", "/api/payees", {
      name: value(form, "name"), bank: value(form, "bank"), account_number: value(form, "account_number").replace(/\s/g, ""),
      routing_number: value(form, "routing_number").replace(/\s/g, ""), nickname: value(form, "nickname")
    }).then(function (data) { go(next(data, "/payees")); })
      .catch(fail(form, button, "The payee could not be added — check the details and try again."));
  });

  onSubmit("form[data-confirm]", function (form, button) {
    api("POST", "/api/payees/" + form.dataset.confirm + "/confirm", { code: value(form, "code") })
      .then(function (data) { go(next(data, "/payees?notice=payee_added")); })
      .catch(fail(form, button, "The payee could not be confirmed — try again."));
  });

  onSubmit("form[data-limits]", function (form, button) {
    api("PUT", "/api/limits", {
      daily_transfer: value(form, "daily_transfer"), single_transfer: value(form, "single_transfer"),
      atm_daily: value(form, "atm_daily")
    }).then(function () { go(here(), "limits_saved"); })
      .catch(fail(form, button, "Your limits could not be saved — try again."));
  });

  onSubmit("form[data-dispute]", function (form, button) {
    var chosen = checked(form, "reason");
    if (!chosen) {
      fail(form, button, "")({ data: { detail: "Choose why you are disputing this charge." } });
      return;
    }
    if (form.getAttribute("aria-busy") === "true") {
      fail(form, button, "")({ data: { detail: "Wait for the file to finish uploading." } });
      return;
    }
    var evidence = form.querySelector("input[data-evidence]");
    var body = { reason: chosen, note: value(form, "note") };
    if (evidence && evidence.dataset.uploadId) body.evidence_id = evidence.dataset.uploadId;
    api("POST", "/api/transactions/" + form.dataset.dispute + "/dispute", body)
      .then(function () { go(here(), "disputed"); })
      .catch(fail(form, button, "The dispute could not be opened — try again."));
  });

  onSubmit("form[data-trade]", function (form, button) {
    var shares = value(form, "shares");
    if (!/^\d{1,6}$/.test(shares)) {
      fail(form, button, "")({ data: { detail: "Enter a whole number of shares." } });
      return;
    }
    var type = checked(form, "order_type");
    api("POST", "/api/orders/review", {
      symbol: form.dataset.trade, side: checked(form, "side"), order_type: type, shares: Number(shares),
      limit_price: type === "limit" ? value(form, "limit_price") : null,
      lot_id: checked(form, "side") === "sell" && value(form, "lot_id") ? value(form, "lot_id") : null
    }).then(function (data) { go(data.url); })
      .catch(fail(form, button, "The order could not be reviewed — try again."));
  });

  /* When the quote moved since the review, the order is refused and the review quoted again. */
  onClick("button[data-place]", function (button) {
    var failed = fail(button.closest("section"), button, "The order could not be placed. Nothing was bought or sold.");
    api("POST", "/api/orders", { review_id: button.dataset.place })
      .then(function (data) { go(next(data, "/invest/orders?notice=placed")); })
      .catch(function (error) {
        var detail = error && error.data && error.data.detail;
        if (error.status === 409 && typeof detail === "string" && /^The price of /.test(detail)) {
          go(here(), "repriced");  /* the review now shows the new quote */
          return;
        }
        failed(error);
      });
  });

  onClick("button[data-cancel-order]", function (button) {
    api("POST", "/api/orders/" + button.dataset.cancelOrder + "/cancel")
      .then(function () { go(here(), "order_cancelled"); })
      .catch(fail(null, button, "The order could not be cancelled — try again."));
  });

  onClick("button[data-cancel-scheduled]", function (button) {
    api("POST", "/api/scheduled/" + button.dataset.cancelScheduled + "/cancel")
      .then(function () { go(here(), "cancelled"); })
      .catch(fail(null, button, "The payment could not be cancelled — try again."));
  });

  onClick("button[data-report]", function (button) {
    api("POST", "/api/messages/" + button.dataset.report + "/report", { reported: true })
      .then(function () { go(here(), "reported"); })
      .catch(fail(button.closest("article"), button, "The message could not be reported — try again."));
  });

  /* Dispute evidence: the file is uploaded (and checked) as soon as it is chosen; the form waits for it. */
  document.querySelectorAll("input[type=file][data-evidence]").forEach(function (input) {
    var form = input.closest("form");
    var status = document.getElementById("d-evidence-status");
    input.addEventListener("change", function () {
      delete input.dataset.uploadId;
      var file = input.files && input.files[0];
      if (!file) { status.textContent = ""; return; }
      form.setAttribute("aria-busy", "true");
      status.textContent = "Uploading " + file.name + "…";
      var reader = new FileReader();
      reader.onload = function () {
        var data = String(reader.result).split(",")[1] || "";
        api("POST", "/api/uploads", { name: file.name, content_type: file.type || "image/png", data: data })
          .then(function (made) {
            input.dataset.uploadId = made.upload.id;
            status.textContent = file.name + " attached";
          })
          .catch(function (error) { status.textContent = "Could not upload " + file.name + ": " + reason(error, "try again"); })
          .then(function () { form.setAttribute("aria-busy", "false"); });
      };
      reader.onerror = function () {
        status.textContent = "Could not read " + file.name;
        form.setAttribute("aria-busy", "false");
      };
      reader.readAsDataURL(file);
    });
  });

  onClick("button[data-freeze]", function (button) {
    var frozen = button.dataset.frozen === "true";
    api("POST", "/api/cards/" + button.dataset.freeze + "/freeze", { frozen: frozen })
      .then(function () { go(here(), frozen ? "card_frozen" : "card_unfrozen"); })
      .catch(fail(button.closest("section"), button, "The card could not be changed — try again."));
  });

  onSubmit("form[data-card-limit]", function (form, button) {
    api("PUT", "/api/cards/" + form.dataset.cardLimit + "/limit", { daily_spend: value(form, "daily_spend") })
      .then(function () { go(here(), "card_limit_saved"); })
      .catch(fail(form, button, "The limit could not be saved — try again."));
  });

  onSubmit("form[data-travel]", function (form, button) {
    if (!value(form, "destination")) {
      fail(form, button, "")({ data: { detail: "Choose where you're going." } });
      return;
    }
    api("POST", "/api/cards/" + form.dataset.travel + "/travel", {
      destination: value(form, "destination"), start_date: value(form, "start_date"), end_date: value(form, "end_date")
    }).then(function () { go(here(), "travel_added"); })
      .catch(fail(form, button, "The travel notice could not be added — try again."));
  });

  onClick("button[data-remove-travel]", function (button) {
    api("DELETE", "/api/travel/" + button.dataset.removeTravel)
      .then(function () { go(here(), "travel_removed"); })
      .catch(fail(button.closest("section"), button, "The travel notice could not be removed — try again."));
  });

  onSubmit("form[data-alerts]", function (form, button) {
    function on(name) { var box = form.querySelector("input[name=" + name + "]"); return !!(box && box.checked); }
    api("PUT", "/api/alerts", {
      low_balance_on: on("low_balance_on"), low_balance: value(form, "low_balance"),
      large_payment_on: on("large_payment_on"), large_payment: value(form, "large_payment"),
      card_abroad_on: on("card_abroad_on"), new_payee_on: on("new_payee_on"), channel: value(form, "channel")
    }).then(function () { go(here(), "alerts_saved"); })
      .catch(fail(form, button, "Your alerts could not be saved — try again."));
  });

  onClick("button[data-message-action]", function (button) {
    api("POST", "/api/messages/" + button.dataset.messageAction + "/action")
      .then(function (data) { go(data.url); })
      .catch(fail(button.closest("article"), button, "Something went wrong — try again."));
  });
})();
