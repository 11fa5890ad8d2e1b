/* Cartwheel's later features: sending items back, the carrier's live tracking and coupons at checkout.
   Loaded only by the pages that have them (the checkout loads it only in a world with a coupon wallet, the
   tracking page only with the carrier's live scans), after shop.js. */
(function () {
  "use strict";

  var api = window.Kit.api;
  var show = window.Kit.show;
  var clear = window.Kit.clear;

  /* What the store said was wrong (its 4xx detail), or a plain retry hint. */
  function why(error) {
    return error.data && typeof error.data.detail === "string" ? error.data.detail : "try again";
  }

  function money(cents) {
    var sign = cents < 0 ? "\u2212" : "";
    return sign + "$" + (Math.abs(cents) / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
  }

  /* Tracking: ask the carrier for scans newer than the shop's last sync, newest first; the latest one's place
     and what happened there head the panel. The carrier can be slow or unreachable: "Check again" asks anew. */
  document.querySelectorAll("[data-live-tracking]").forEach(function (panel) {
    var carrier = panel.dataset.carrier;
    var status = panel.querySelector("[data-live-status]");
    var latest = panel.querySelector("[data-live-latest]");
    var list = panel.querySelector("[data-live-scans]");
    var retry = panel.querySelector("[data-live-retry]");
    function when(stamp) { return stamp.slice(0, 10) + " " + stamp.slice(11, 16); }
    function row(id, label, value) {
      var group = document.createElement("div");
      group.setAttribute("role", "group");
      group.setAttribute("aria-labelledby", id);
      var term = document.createElement("dt");
      term.id = id;
      term.textContent = label;
      var detail = document.createElement("dd");
      detail.textContent = value;
      group.appendChild(term);
      group.appendChild(detail);
      return group;
    }
    function ask() {
      panel.setAttribute("aria-busy", "true");
      retry.hidden = true;
      status.textContent = "Checking " + carrier + " for newer scans\u2026";
      api("GET", "/api/orders/" + encodeURIComponent(panel.dataset.liveTracking) + "/tracking/live")
        .then(function (data) {
          latest.textContent = "";
          list.textContent = "";
          if (!data.scans.length) {
            status.textContent = carrier + " has no scans newer than the ones below.";
            latest.hidden = true;
            return;
          }
          var newest = data.scans[0];
          latest.appendChild(row("live-place-label", "Latest scan location", newest.place));
          latest.appendChild(row("live-what-label", "Latest scan", newest.description + " \u00b7 " + when(newest.at)));
          latest.hidden = false;
          data.scans.forEach(function (scan) {
            var item = document.createElement("li");
            var what = document.createElement("p");
            what.className = "tracking-what";
            what.textContent = scan.description;
            var where = document.createElement("p");
            where.className = "muted small";
            where.textContent = scan.place + " \u00b7 " + when(scan.at);
            item.appendChild(what);
            item.appendChild(where);
            list.appendChild(item);
          });
          status.textContent = "Updated from " + carrier + " just now.";
        })
        .catch(function () {
          status.textContent = "Couldn\u2019t reach " + carrier + " just now.";
          retry.hidden = false;
        })
        .then(function () { panel.setAttribute("aria-busy", "false"); });
    }
    retry.querySelector("button").addEventListener("click", ask);
    ask();
  });

  /* Wish list: save from a product page; move to the cart or remove on the list. */
  var pageAlert = document.querySelector("main > [data-alert]");
  document.querySelectorAll("button[data-save-for-later]").forEach(function (button) {
    var form = button.closest("form");
    var status = form ? form.querySelector("[data-status]") : null;
    var alertBox = form ? form.querySelector("[data-alert]") : pageAlert;
    button.addEventListener("click", function () {
      button.disabled = true;
      api("POST", "/api/wishlist", { product_id: button.dataset.saveForLater })
        .then(function () { show(status, "Saved to your wish list"); })
        .catch(function () { show(alertBox, "Could not save to your wish list — try again"); })
        .then(function () { button.disabled = false; });
    });
  });
  document.querySelectorAll("button[data-move-to-cart]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      api("POST", "/api/wishlist/" + encodeURIComponent(button.dataset.moveToCart) + "/move", {})
        .then(function () { window.location.assign("/account/wishlist?notice=moved"); })
        .catch(function () {
          button.disabled = false;
          show(pageAlert, "Could not move that item to your cart — try again");
        });
    });
  });
  document.querySelectorAll("button[data-remove-wish]").forEach(function (button) {
    button.addEventListener("click", function () {
      button.disabled = true;
      api("DELETE", "/api/wishlist/" + encodeURIComponent(button.dataset.removeWish))
        .then(function () { window.location.assign("/account/wishlist?notice=removed"); })
        .catch(function () {
          button.disabled = false;
          show(pageAlert, "Could not remove that item — try again");
        });
    });
  });

  /* Review form: a rating, a title and the text; the page then shows the posted review. */
  document.querySelectorAll("form[data-review-form]").forEach(function (form) {
    var button = form.querySelector("button[type=submit]");
    var alertBox = form.querySelector("[data-alert]");
    var label = button.textContent;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (button.disabled) return;
      var rating = form.querySelector("input[name=rating]:checked");
      var title = form.elements.namedItem("title").value.trim();
      var body = form.elements.namedItem("body").value.trim();
      if (!rating || !title || !body) {
        show(alertBox, "Choose a rating and write a title and your review");
        return;
      }
      clear(alertBox, true);
      button.disabled = true;
      button.textContent = "Posting…";
      api("POST", "/api/products/" + encodeURIComponent(form.dataset.productId) + "/reviews",
          { rating: parseInt(rating.value, 10), title: title, body: body })
        .then(function () { window.location.reload(); })
        .catch(function () {
          button.disabled = false;
          button.textContent = label;
          show(alertBox, "Could not post your review — try again");
        });
    });
  });

  /* Deleting one's own review; then the form to write one is back. */
  document.querySelectorAll("[data-review-delete]").forEach(function (box) {
    var button = box.querySelector("button[data-delete]");
    var alertBox = box.querySelector("[data-alert]");
    button.addEventListener("click", function () {
      if (button.disabled) return;
      button.disabled = true;
      api("DELETE", "/api/reviews/" + encodeURIComponent(box.dataset.reviewDelete))
        .then(function () { window.location.reload(); })
        .catch(function () {
          button.disabled = false;
          show(alertBox, "Could not delete your review \u2014 try again");
        });
    });
  });

  /* Return form: every ticked item needs a reason; one request for the lot. Where the store takes photos, an
     item that arrived damaged needs one: it is uploaded (and checked) as soon as it is chosen, and the form
     waits for every upload before it can be sent. */
  document.querySelectorAll("form[data-return-form]").forEach(function (form) {
    var button = form.querySelector("button[type=submit]");
    var alertBox = form.querySelector("[data-alert]");
    var label = button.textContent;
    var pending = 0;
    function settle() {
      button.disabled = pending > 0;
      button.textContent = pending > 0 ? "Uploading photos…" : label;
      form.setAttribute("aria-busy", pending > 0 ? "true" : "false");
    }
    form.querySelectorAll("input[type=file][data-photo-input]").forEach(function (input) {
      var status = form.querySelector("#photo-status-" + CSS.escape(input.dataset.productId));
      input.addEventListener("change", function () {
        delete input.dataset.uploadId;
        var file = input.files && input.files[0];
        if (!file) { status.textContent = ""; return; }
        pending += 1;
        settle();
        status.textContent = "Uploading " + file.name + "…";
        var reader = new FileReader();
        reader.onload = function () {
          var data = String(reader.result).split(",")[1] || "";
          api("POST", "/api/uploads", { name: file.name, content_type: file.type || "image/png", data: data })
            .then(function (made) {
              input.dataset.uploadId = made.upload.id;
              status.textContent = file.name + " attached";
            })
            .catch(function (error) {
              status.textContent = "Could not upload " + file.name + ": " + why(error);
            })
            .then(function () { pending -= 1; settle(); });
        };
        reader.onerror = function () {
          status.textContent = "Could not read " + file.name;
          pending -= 1;
          settle();
        };
        reader.readAsDataURL(file);
      });
    });
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (button.disabled) return;
      var items = [];
      var missing = null;
      var needsPhoto = null;
      form.querySelectorAll("input[name=product_id]:checked").forEach(function (box) {
        var select = form.querySelector("#reason-" + CSS.escape(box.value));
        select.removeAttribute("aria-invalid");
        if (!select.value) {
          select.setAttribute("aria-invalid", "true");
          if (!missing) missing = select;
        }
        var item = { product_id: box.value, reason: select.value };
        var photo = form.querySelector("#photo-" + CSS.escape(box.value));
        if (photo && photo.dataset.uploadId) item.photo = photo.dataset.uploadId;
        if (photo && select.value === form.dataset.damaged && !item.photo && !needsPhoto) needsPhoto = photo;
        items.push(item);
      });
      if (!items.length) {
        show(alertBox, "Tick the items you are sending back");
        return;
      }
      if (missing) {
        show(alertBox, "Choose a reason for each item you are sending back");
        missing.focus();
        return;
      }
      if (needsPhoto) {
        show(alertBox, "Add a photo of the damage to each item that arrived damaged");
        needsPhoto.focus();
        return;
      }
      var refund = form.querySelector("input[name=refund_method]:checked");
      clear(alertBox, true);
      button.disabled = true;
      button.textContent = "Requesting…";
      api("POST", "/api/orders/" + encodeURIComponent(form.dataset.orderId) + "/returns",
          { items: items, refund_method: refund ? refund.value : "original" })
        .then(function (data) {
          window.location.assign("/returns/" + encodeURIComponent(data["return"].id));
        })
        .catch(function () {
          button.disabled = false;
          button.textContent = label;
          show(alertBox, "Could not request the return — try again");
        });
    });
  });

  /* Back-in-stock email for a sold-out product. */
  document.querySelectorAll("[data-stock-alert]").forEach(function (box) {
    var button = box.querySelector("button[data-alert-me]");
    var status = box.querySelector("[data-alert-status]");
    if (!button) return;
    button.addEventListener("click", function () {
      if (button.disabled) return;
      button.disabled = true;
      api("POST", "/api/products/" + encodeURIComponent(box.dataset.stockAlert) + "/stock-alert")
        .then(function (data) {
          status.textContent = "We'll email " + data.alert.email + " when it's back in stock.";
          button.remove();
        })
        .catch(function () {
          button.disabled = false;
          status.textContent = "Could not set up the email \u2014 try again";
        });
    });
  });

  /* A question about a product, posted for its seller and buyers to answer. */
  document.querySelectorAll("form[data-ask-form]").forEach(function (form) {
    var button = form.querySelector("button[type=submit]");
    var alertBox = form.querySelector("[data-alert]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (button.disabled) return;
      var text = form.elements.namedItem("text").value.trim();
      if (text.length < 5) {
        show(alertBox, "Write your question (at least a few words)");
        return;
      }
      clear(alertBox, true);
      button.disabled = true;
      api("POST", "/api/products/" + encodeURIComponent(form.dataset.productId) + "/questions", { text: text })
        .then(function () { window.location.reload(); })
        .catch(function () {
          button.disabled = false;
          show(alertBox, "Could not post your question \u2014 try again");
        });
    });
  });

  /* Cancelling an order that has not shipped. */
  document.querySelectorAll("[data-cancel-order]").forEach(function (panel) {
    var button = panel.querySelector("button[data-cancel]");
    var alertBox = panel.querySelector("[data-alert]");
    button.addEventListener("click", function () {
      if (button.disabled) return;
      button.disabled = true;
      api("POST", "/api/orders/" + encodeURIComponent(panel.dataset.cancelOrder) + "/cancel")
        .then(function () { window.location.reload(); })
        .catch(function (error) {
          button.disabled = false;
          show(alertBox, "Could not cancel: " + why(error));
        });
    });
  });

  /* Saved cards: make one the default, or remove one that is not. */
  document.querySelectorAll("[data-payment-cards]").forEach(function (list) {
    var alertBox = list.querySelector("[data-alert]");
    function act(button, method, url, notice) {
      button.addEventListener("click", function () {
        if (button.disabled) return;
        button.disabled = true;
        clear(alertBox, true);
        api(method, url)
          .then(function () { window.location.assign("/account/payment-methods?notice=" + notice); })
          .catch(function (error) {
            button.disabled = false;
            show(alertBox, "Could not do that: " + why(error));
          });
      });
    }
    list.querySelectorAll("button[data-card-default]").forEach(function (button) {
      act(button, "POST", "/api/payment-methods/" + encodeURIComponent(button.dataset.cardDefault) + "/default",
          "default");
    });
    list.querySelectorAll("button[data-card-remove]").forEach(function (button) {
      act(button, "DELETE", "/api/payment-methods/" + encodeURIComponent(button.dataset.cardRemove), "removed");
    });
  });

  /* Gift cards: a code is redeemed onto the balance; the page then shows what it added. */
  document.querySelectorAll("form[data-gift-card-form]").forEach(function (form) {
    var button = form.querySelector("button[type=submit]");
    var alertBox = form.querySelector("[data-alert]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (button.disabled) return;
      var code = form.elements.namedItem("code").value.trim();
      if (!code) {
        show(alertBox, "Enter the code printed on the gift card");
        return;
      }
      clear(alertBox, true);
      button.disabled = true;
      api("POST", "/api/gift-cards/redeem", { code: code })
        .then(function (data) { window.location.assign("/account/gift-cards?added=" + data.added_cents); })
        .catch(function (error) {
          button.disabled = false;
          show(alertBox, "Could not redeem that code: " + why(error));
        });
    });
  });

  /* Pickup in store: each store's stock system is asked live, which takes a moment. */
  document.querySelectorAll("[data-pickup]").forEach(function (panel) {
    var select = panel.querySelector("select");
    var button = panel.querySelector("button[data-pickup-check]");
    var status = panel.querySelector("[data-pickup-status]");
    var result = panel.querySelector("[data-pickup-result]");
    button.addEventListener("click", function () {
      if (button.disabled) return;
      var name = select.options[select.selectedIndex].text;
      button.disabled = true;
      panel.setAttribute("aria-busy", "true");
      result.hidden = true;
      result.textContent = "";
      status.textContent = "Checking " + name + "\u2026";
      api("GET", "/api/products/" + encodeURIComponent(panel.dataset.pickup) + "/stores/" + encodeURIComponent(select.value))
        .then(function (data) {
          var group = document.createElement("div");
          group.setAttribute("role", "group");
          group.setAttribute("aria-labelledby", "pickup-at-label");
          var term = document.createElement("dt");
          term.id = "pickup-at-label";
          term.textContent = "Stock at " + data.store;
          var detail = document.createElement("dd");
          detail.textContent = data.units ? data.units + " in stock \u00b7 " + data.pickup : "Not in stock";
          group.appendChild(term);
          group.appendChild(detail);
          result.appendChild(group);
          result.hidden = false;
          status.textContent = data.address;
        })
        .catch(function () { status.textContent = "Could not reach " + name + " \u2014 try again"; })
        .then(function () {
          button.disabled = false;
          panel.setAttribute("aria-busy", "false");
        });
    });
  });

  /* Invoices are prepared when asked for; then the order page offers the download. */
  document.querySelectorAll("[data-invoice]").forEach(function (panel) {
    var button = panel.querySelector("button[data-invoice-request]");
    var status = panel.querySelector("[data-invoice-status]");
    if (!button) return;
    var label = button.textContent;
    button.addEventListener("click", function () {
      if (button.disabled) return;
      button.disabled = true;
      panel.setAttribute("aria-busy", "true");
      status.textContent = "Preparing your invoice…";
      api("POST", "/api/orders/" + encodeURIComponent(panel.dataset.invoice) + "/invoice")
        .then(function (data) {
          var link = document.createElement("a");
          link.href = data.download;
          link.setAttribute("download", "");
          link.textContent = "Download invoice";
          status.textContent = "Your invoice is ready.";
          button.replaceWith(link);
        })
        .catch(function () {
          button.disabled = false;
          button.textContent = label;
          status.textContent = "Could not prepare the invoice — try again";
        })
        .then(function () { panel.setAttribute("aria-busy", "false"); });
    });
  });

  /* Checkout with a coupon wallet or gift options: price a code, add gift wrap, and place the order with them.
     This submit listener runs before shop.js's (capture, at the form) and sends the order itself. */
  document.querySelectorAll("form[data-checkout]").forEach(function (form) {
    var box = form.querySelector("[data-coupon-box]");
    var giftBox = form.querySelector("[data-gift-box]");
    if (!box && !giftBox) return;
    var totalOut = form.querySelector("[data-order-total]");
    var subtotal = parseInt(form.dataset.subtotal, 10) || 0;
    var placeButton = form.querySelector("#place-order");
    var formAlert = form.querySelector("aside > [data-alert]");
    var applied = null;
    var isGift = giftBox ? giftBox.querySelector("#is-gift") : null;
    var wrap = giftBox ? giftBox.querySelector("#gift-wrap") : null;
    var wrapCents = giftBox ? parseInt(giftBox.dataset.wrapCents, 10) || 0 : 0;

    function wrapped() {
      return !!(isGift && isGift.checked && wrap.checked);
    }
    function refresh() {
      var chosen = form.querySelector("input[name=shipping]:checked");
      var shipping = chosen ? parseInt(chosen.dataset.shippingCents, 10) || 0 : 0;
      var discount = applied ? applied.discount_cents : 0;
      var row = form.querySelector("[data-discount-row]");
      if (row) {
        row.hidden = !applied;
        if (applied) {
          form.querySelector("[data-discount-label]").textContent = "Coupon " + applied.code;
          form.querySelector("[data-discount-total]").textContent = money(-discount);
        }
      }
      var wrapRow = form.querySelector("[data-wrap-row]");
      if (wrapRow) wrapRow.hidden = !wrapped();
      totalOut.textContent = money(subtotal + shipping - discount + (wrapped() ? wrapCents : 0));
    }
    form.querySelectorAll("input[name=shipping]").forEach(function (radio) {
      radio.addEventListener("change", refresh);
    });

    if (giftBox) {
      var details = giftBox.querySelector("[data-gift-details]");
      isGift.addEventListener("change", function () {
        details.hidden = !isGift.checked;
        refresh();
      });
      wrap.addEventListener("change", refresh);
    }

    if (box) {
      var input = box.querySelector("#coupon-code");
      var applyButton = box.querySelector("[data-apply-coupon]");
      var status = box.querySelector("[data-coupon-status]");
      var alertBox = box.querySelector("[data-coupon-alert]");
      var apply = function () {
        var code = input.value.trim();
        clear(status);
        clear(alertBox, true);
        if (!code) {
          show(alertBox, "Enter a coupon code");
          return;
        }
        applyButton.disabled = true;
        api("GET", "/api/coupons/" + encodeURIComponent(code) + "/quote")
          .then(function (data) {
            applied = data;
            input.value = data.code;
            show(status, "Coupon " + data.code + " applied: " + money(-data.discount_cents));
          })
          .catch(function (error) {
            applied = null;
            show(alertBox, (error && error.data && error.data.detail) || "That coupon can't be used on this order");
          })
          .then(function () {
            applyButton.disabled = false;
            refresh();
          });
      };
      applyButton.addEventListener("click", apply);
      input.addEventListener("keydown", function (event) {
        if (event.key === "Enter") {
          event.preventDefault();
          apply();
        }
      });
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      event.stopImmediatePropagation();
      if (placeButton.disabled) return;
      var address = form.querySelector("input[name=address_id]:checked");
      var shipping = form.querySelector("input[name=shipping]:checked");
      if (!address || !shipping) {
        show(formAlert, "Choose a shipping address and a shipping method");
        return;
      }
      clear(formAlert, true);
      var label = placeButton.textContent;
      placeButton.disabled = true;
      placeButton.textContent = "Placing order…";
      var body = { address_id: address.value, shipping: shipping.value };
      if (applied) body.coupon = applied.code;
      if (isGift && isGift.checked) {
        body.gift = { message: giftBox.querySelector("#gift-message").value.trim(), wrap: wrap.checked };
      }
      api("POST", "/api/orders", body)
        .then(function (data) {
          window.location.assign("/orders/" + encodeURIComponent(data.order.id));
        })
        .catch(function () {
          placeButton.disabled = false;
          placeButton.textContent = label;
          show(formAlert, "Could not place your order — try again");
        });
    }, true);
    refresh();
  });
})();
