/* Meridian Bank's later features: budgets, authorised users on a card, dividend reinvestment. Every write
   goes through the JSON API with fetch() (the kit's Kit.api), with bank.js's helpers (window.Bank). */
(function () {
  "use strict";

  var api = window.Kit.api;
  var go = window.Kit.go;

  // what bank.js does for its own forms, the same for these
  var here = window.Bank.here;
  var fail = window.Bank.fail;
  var value = window.Bank.value;
  var onSubmit = window.Bank.onSubmit;
  var onClick = window.Bank.onClick;

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
