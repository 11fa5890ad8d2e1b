/* Cartwheel: small progressive scripts. Every write goes through the JSON API (Kit.api, /static/kit.js). */
(function () {
  "use strict";

  var api = window.Kit.api;
  var show = window.Kit.show;
  var clear = window.Kit.clear;

  function setCartCount(count) {
    document.querySelectorAll("[data-cart-count]").forEach(function (el) {
      el.textContent = String(count);
    });
  }

  function reloadWith(path, notice) {
    window.location.assign(path + (notice ? "?notice=" + encodeURIComponent(notice) : ""));
  }

  /* Product page: add to cart. */
  document.querySelectorAll("form[data-add-to-cart]").forEach(function (form) {
    var button = form.querySelector("button[type=submit]");
    var input = form.querySelector("input[name=quantity]");
    var status = form.querySelector("[data-status]");
    var alertBox = form.querySelector("[data-alert]");
    var label = button.textContent;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (button.disabled) return;
      var quantity = parseInt(input.value, 10);
      if (!(quantity >= 1 && quantity <= 10)) {
        clear(status);
        show(alertBox, "Choose a quantity from 1 to 10");
        input.focus();
        return;
      }
      clear(status);
      clear(alertBox, true);
      button.disabled = true;
      button.textContent = "Adding…";
      api("POST", "/api/cart", { product_id: form.dataset.productId, quantity: quantity })
        .then(function (data) {
          setCartCount(data.cart_count);
          show(status, "Added to cart");
        })
        .catch(function () {
          show(alertBox, "Could not add to cart — try again");
        })
        .then(function () {
          button.disabled = false;
          button.textContent = label;
        });
    });
  });

  /* Cart page: remove items and change quantities. */
  var cartAlert = document.querySelector("main > [data-alert]");
  document.querySelectorAll("button[data-remove-item]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      api("DELETE", "/api/cart/" + encodeURIComponent(button.dataset.removeItem))
        .then(function () { reloadWith("/cart", "item_removed"); })
        .catch(function () {
          button.disabled = false;
          show(cartAlert, "Could not remove the item — try again");
        });
    });
  });
  document.querySelectorAll("input[data-update-quantity]").forEach(function (input) {
    var previous = input.value;
    input.addEventListener("change", function () {
      var quantity = parseInt(input.value, 10);
      if (!(quantity >= 1 && quantity <= 10)) {
        input.value = previous;
        show(cartAlert, "Choose a quantity from 1 to 10");
        return;
      }
      input.disabled = true;
      api("PATCH", "/api/cart/" + encodeURIComponent(input.dataset.updateQuantity), { quantity: quantity })
        .then(function () { reloadWith("/cart", "cart_updated"); })
        .catch(function () {
          input.disabled = false;
          input.value = previous;
          show(cartAlert, "Could not update the quantity — try again");
        });
    });
  });

  /* Checkout: live total and placing the order. */
  document.querySelectorAll("form[data-checkout]").forEach(function (form) {
    var subtotal = parseInt(form.dataset.subtotal, 10) || 0;
    var shippingOut = form.querySelector("[data-shipping-total]");
    var totalOut = form.querySelector("[data-order-total]");
    var button = form.querySelector("#place-order");
    var alertBox = form.querySelector("[data-alert]");
    var label = button.textContent;

    function money(cents) {
      return "$" + (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    }
    function refresh() {
      var chosen = form.querySelector("input[name=shipping]:checked");
      var shipping = chosen ? parseInt(chosen.dataset.shippingCents, 10) || 0 : 0;
      shippingOut.textContent = shipping === 0 ? "Free" : money(shipping);
      totalOut.textContent = money(subtotal + shipping);
    }
    form.querySelectorAll("input[name=shipping]").forEach(function (radio) {
      radio.addEventListener("change", refresh);
    });
    refresh();

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (button.disabled) return;
      var address = form.querySelector("input[name=address_id]:checked");
      var shipping = form.querySelector("input[name=shipping]:checked");
      if (!address || !shipping) {
        show(alertBox, "Choose a shipping address and a shipping method");
        return;
      }
      clear(alertBox, true);
      button.disabled = true;
      button.textContent = "Placing order…";
      api("POST", "/api/orders", { address_id: address.value, shipping: shipping.value })
        .then(function (data) {
          window.location.assign("/orders/" + encodeURIComponent(data.order.id));
        })
        .catch(function () {
          button.disabled = false;
          button.textContent = label;
          show(alertBox, "Could not place your order — try again");
        });
    });
  });

  /* Account: saved addresses. */
  var accountAlert = document.querySelector("main > [data-alert]");
  document.querySelectorAll("button[data-set-default]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      api("POST", "/api/addresses/" + encodeURIComponent(button.dataset.setDefault) + "/default", {})
        .then(function () { reloadWith("/account", "default_updated"); })
        .catch(function () {
          button.disabled = false;
          show(accountAlert, "Could not update your default address — try again");
        });
    });
  });

  document.querySelectorAll("button[data-message-action]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      api("POST", "/api/messages/" + encodeURIComponent(button.dataset.messageAction) + "/action", {})
        .then(function () { reloadWith("/account", "message_done"); })
        .catch(function () {
          button.disabled = false;
          show(accountAlert, "Could not complete that — try again");
        });
    });
  });

  document.querySelectorAll("form[data-address-form]").forEach(function (form) {
    var button = form.querySelector("button[type=submit]");
    var label = button.textContent;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (button.disabled) return;
      var fields = ["full_name", "street", "city", "postal_code", "country"];
      var body = {};
      var missing = null;
      fields.forEach(function (name) {
        var input = form.elements.namedItem(name);
        var value = input.value.trim();
        input.removeAttribute("aria-invalid");
        if (!value) {
          input.setAttribute("aria-invalid", "true");
          if (!missing) missing = input;
        }
        body[name] = value;
      });
      if (missing) {
        show(accountAlert, "Please fill in every field");
        missing.focus();
        return;
      }
      body.make_default = form.elements.namedItem("make_default").checked;
      clear(accountAlert, true);
      button.disabled = true;
      button.textContent = "Saving…";
      api("POST", "/api/addresses", body)
        .then(function () { reloadWith("/account", "address_saved"); })
        .catch(function () {
          button.disabled = false;
          button.textContent = label;
          show(accountAlert, "Could not save address — try again");
        });
    });
  });
})();
