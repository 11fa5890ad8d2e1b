/* Meridian Bank's later features: budgets, authorised users on a card, dividend reinvestment. Every write
   goes through the JSON API with fetch() (the kit's Kit.api), as in bank.js. */
(function () {
  "use strict";

  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;

  function here() { return window.location.pathname + window.location.search.replace(/[?&]notice=[^&]*/, ""); }

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
    if (button) button.disabled = true;
  }

  function value(form, name) {
    var field = form.querySelector("[name=" + name + "]");
    return field ? field.value.trim() : "";
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

  onSubmit("form[data-budget]", function (form, button) {
    if (!value(form, "category")) {
      fail(form, button, "")({ data: { detail: "Choose a category." } });
      return;
    }
    api("POST", "/api/budgets", { category: value(form, "category"), amount: value(form, "amount") })
      .then(function () { go(here(), "budget_added"); })
      .catch(fail(form, button, "The budget could not be added — try again."));
  });

  onSubmit("form[data-budget-amount]", function (form, button) {
    api("PUT", "/api/budgets/" + form.dataset.budgetAmount, { amount: value(form, "amount") })
      .then(function () { go(here(), "budget_saved"); })
      .catch(fail(form, button, "The budget could not be saved — try again."));
  });

  onClick("button[data-remove-budget]", function (button, root) {
    api("DELETE", "/api/budgets/" + button.dataset.removeBudget)
      .then(function () { go("/budgets", "budget_removed"); })
      .catch(fail(root, button, "The budget could not be removed — try again."));
  });

  onSubmit("form[data-authorised]", function (form, button) {
    api("POST", "/api/cards/" + form.dataset.authorised + "/authorised", {
      name: value(form, "name"), daily_limit: value(form, "daily_limit")
    }).then(function () { go(here(), "user_added"); })
      .catch(fail(form, button, "The authorised user could not be added — check the details and try again."));
  });

  onClick("button[data-remove-user]", function (button, root) {
    api("DELETE", "/api/authorised/" + button.dataset.removeUser)
      .then(function () { go(here(), "user_removed"); })
      .catch(fail(root, button, "The authorised user could not be removed — try again."));
  });

  onSubmit("form[data-reinvest]", function (form, button) {
    var symbols = [];
    form.querySelectorAll("input[name=reinvest]:checked").forEach(function (box) { symbols.push(box.value); });
    api("PUT", "/api/dividends/reinvestment", { symbols: symbols })
      .then(function () { go(here(), "reinvest_saved"); })
      .catch(fail(form, button, "Your reinvestment settings could not be saved — try again."));
  });
})();
