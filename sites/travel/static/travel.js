/* Wayfarer: the date picker, the booking steps and the trip actions. Writes go through the JSON API
   with the kit's helper (kit.js); after a write the next page loads with a ?notice= flash. */
(function () {
  "use strict";

  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;
  var MONTHS = ["January", "February", "March", "April", "May", "June", "July", "August", "September",
                "October", "November", "December"];
  var DAYS = ["Sunday", "Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday"];

  var pageAlert = document.querySelector("main [data-alert]");
  function fail(button, fallback) {
    return function (error) {
      if (button) button.disabled = false;
      if (pageAlert) {
        pageAlert.textContent = reason(error, fallback);
        pageAlert.hidden = false;
        pageAlert.scrollIntoView({ block: "nearest" });
      }
    };
  }
  function clearAlert() { if (pageAlert) { pageAlert.textContent = ""; pageAlert.hidden = true; } }
  /* ---- date picker: a calendar popup next to each date field (the field also takes typed dates) ---- */

  function iso(d) {
    return d.getFullYear() + "-" + String(d.getMonth() + 1).padStart(2, "0") + "-" + String(d.getDate()).padStart(2, "0");
  }
  function parse(value) {
    var m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(value || "");
    return m ? new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3])) : null;
  }

  function openCalendar(button) {
    closeCalendars();
    var input = document.getElementById(button.dataset.calendarFor);
    var min = parse(input.dataset.min) || new Date();
    var shown = parse(input.value) || min;
    var month = new Date(shown.getFullYear(), shown.getMonth(), 1);
    var label = input.labels && input.labels[0] ? input.labels[0].textContent.trim() : "date";
    var pop = document.createElement("div");
    pop.className = "tv-calendar";
    pop.setAttribute("role", "dialog");
    pop.setAttribute("aria-modal", "false");
    pop.setAttribute("aria-label", "Choose " + label.toLowerCase() + " date");
    /* Redrawing a month detaches the clicked button: keep such clicks from closing the calendar. */
    pop.addEventListener("click", function (event) { event.stopPropagation(); });

    function draw() {
      pop.innerHTML = "";
      var head = document.createElement("div");
      head.className = "tv-cal-head";
      var prev = document.createElement("button");
      prev.type = "button"; prev.textContent = "‹"; prev.setAttribute("aria-label", "Previous month");
      var next = document.createElement("button");
      next.type = "button"; next.textContent = "›"; next.setAttribute("aria-label", "Next month");
      var title = document.createElement("h2");
      title.textContent = MONTHS[month.getMonth()] + " " + month.getFullYear();
      title.setAttribute("aria-live", "polite");
      prev.addEventListener("click", function () { month = new Date(month.getFullYear(), month.getMonth() - 1, 1); draw(); });
      next.addEventListener("click", function () { month = new Date(month.getFullYear(), month.getMonth() + 1, 1); draw(); });
      head.append(prev, title, next);
      var grid = document.createElement("div");
      grid.className = "tv-cal-grid";
      grid.setAttribute("role", "group");
      grid.setAttribute("aria-label", title.textContent);
      ["Mo", "Tu", "We", "Th", "Fr", "Sa", "Su"].forEach(function (d) {
        var cell = document.createElement("span"); cell.className = "tv-cal-dow"; cell.textContent = d;
        cell.setAttribute("aria-hidden", "true"); grid.append(cell);
      });
      var offset = (month.getDay() + 6) % 7;
      for (var i = 0; i < offset; i++) grid.append(document.createElement("span"));
      var days = new Date(month.getFullYear(), month.getMonth() + 1, 0).getDate();
      for (var day = 1; day <= days; day++) {
        var date = new Date(month.getFullYear(), month.getMonth(), day);
        var b = document.createElement("button");
        b.type = "button";
        b.textContent = String(day);
        b.setAttribute("aria-label", DAYS[date.getDay()] + " " + day + " " + MONTHS[date.getMonth()] + " " + date.getFullYear());
        if (iso(date) === input.value) b.setAttribute("aria-pressed", "true");
        if (date < min) b.disabled = true;
        b.dataset.date = iso(date);
        b.addEventListener("click", function (event) {
          input.value = event.currentTarget.dataset.date;
          input.dispatchEvent(new Event("change", { bubbles: true }));
          closeCalendars();
          input.focus();
        });
        grid.append(b);
      }
      pop.append(head, grid);
    }
    draw();
    button.setAttribute("aria-expanded", "true");
    button.closest("[data-datepicker]").append(pop);
    var focusable = pop.querySelector("[aria-pressed=true]") || pop.querySelector(".tv-cal-grid button:not(:disabled)");
    if (focusable) focusable.focus();
  }

  function closeCalendars() {
    document.querySelectorAll(".tv-calendar").forEach(function (pop) { pop.remove(); });
    document.querySelectorAll("[data-calendar-for]").forEach(function (b) { b.setAttribute("aria-expanded", "false"); });
  }

  document.querySelectorAll("[data-calendar-for]").forEach(function (button) {
    button.addEventListener("click", function (event) {
      event.stopPropagation();
      if (button.getAttribute("aria-expanded") === "true") closeCalendars(); else openCalendar(button);
    });
  });
  document.addEventListener("keydown", function (event) { if (event.key === "Escape") closeCalendars(); });
  document.addEventListener("click", function (event) {
    if (!event.target.closest || !event.target.closest(".tv-calendar")) closeCalendars();
  });

  /* ---- the booking steps: guest details → payment → review → confirm (one write, at the end) ---- */

  var booking = document.querySelector("form[data-booking]");
  if (booking) {
    var steps = ["guest", "payment", "review"];
    var promo = "";
    var show = function (name) {
      booking.querySelectorAll("[data-step]").forEach(function (section) {
        section.hidden = steps.indexOf(section.dataset.step) > steps.indexOf(name);
      });
      document.querySelectorAll("[data-step-marker]").forEach(function (li) {
        var here = li.dataset.stepMarker === name;
        li.classList.toggle("current", here);
        li.classList.toggle("done", steps.indexOf(li.dataset.stepMarker) < steps.indexOf(name));
        if (here) li.setAttribute("aria-current", "step"); else li.removeAttribute("aria-current");
      });
      var section = booking.querySelector("[data-step=" + name + "]");
      section.scrollIntoView({ block: "start" });
      /* The step is in the address, so a reload or a sign-in comes back to it. */
      var url = new URL(window.location.href);
      if (name === "guest") url.searchParams.delete("step"); else url.searchParams.set("step", name);
      window.history.replaceState(null, "", url.pathname + url.search);
    };
    var value = function (name) { var el = booking.elements[name]; return el ? String(el.value).trim() : ""; };
    var stay = function () {
      return { hotel_id: booking.dataset.hotel, room_id: booking.dataset.room, check_in: booking.dataset.checkIn,
               check_out: booking.dataset.checkOut, guests: Number(booking.dataset.guests),
               rooms: Number(booking.dataset.rooms), promo_code: promo };
    };
    var money = function (cents) {
      return "$" + (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    };
    var showQuote = function (q, pct) {
      booking.querySelector("[data-price=room]").textContent = money(q.room_total_cents);
      booking.querySelector("[data-price=taxes]").textContent = money(q.taxes_cents);
      booking.querySelector("[data-price=total]").textContent = money(q.total_cents);
      var row = booking.querySelector("[data-discount-row]");
      row.hidden = !q.discount_cents;
      booking.querySelector("[data-price=discount]").textContent = "−" + money(q.discount_cents) + " (" + pct + "%)";
    };

    booking.querySelectorAll("[data-next]").forEach(function (button) {
      button.addEventListener("click", function () {
        clearAlert();
        if (button.dataset.next === "payment") {
          var missing = ["first_name", "last_name", "email"].filter(function (n) { return !value(n); });
          if (missing.length) {
            fail(null, "")({ data: { detail: "Please fill in: " + missing.join(", ").replace(/_/g, " ") + "." } });
            return;
          }
        }
        if (button.dataset.next === "review") {
          if (!booking.querySelector("input[name=card_id]:checked")) {
            fail(null, "")({ data: { detail: "Choose a card to pay with." } });
            return;
          }
          fillReview();
        }
        show(button.dataset.next);
      });
    });
    var fillReview = function () {
      var card = booking.querySelector("input[name=card_id]:checked");
      booking.querySelector("[data-review=card]").textContent = card ? card.labels[0].textContent : "";
      booking.querySelector("[data-review=guest]").textContent = value("first_name") + " " + value("last_name");
      booking.querySelector("[data-review=email]").textContent = value("email");
    };
    booking.addEventListener("change", function () { fillReview(); });
    var resumed = new URLSearchParams(window.location.search).get("step");
    if (resumed === "payment" || resumed === "review") { fillReview(); show(resumed); }

    var promoStatus = booking.querySelector("[data-promo-status]");
    booking.querySelector("[data-apply-promo]").addEventListener("click", function (event) {
      var button = event.currentTarget;
      var code = value("promo_code");
      clearAlert();
      button.disabled = true;
      var wanted = stay();
      wanted.promo_code = code;
      api("POST", "/api/quote", wanted).then(function (data) {
        button.disabled = false;
        promo = code;
        showQuote(data.quote, data.discount_pct);
        promoStatus.textContent = code ? "Code " + code.toUpperCase() + " applied: " + data.discount_pct + "% off the room price" : "";
      }).catch(function (error) {
        button.disabled = false;
        promoStatus.textContent = "";
        fail(null, "That code couldn't be checked — try again")(error);
      });
    });

    booking.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = booking.querySelector("[data-confirm]");
      var card = booking.querySelector("input[name=card_id]:checked");
      var body = stay();
      body.first_name = value("first_name");
      body.last_name = value("last_name");
      body.email = value("email");
      body.phone = value("phone");
      body.requests = value("requests");
      body.card_id = card ? card.value : "";
      body.promo_code = value("promo_code");
      body.accept_terms = booking.elements.accept_terms.checked;
      clearAlert();
      if (!body.accept_terms) {
        fail(null, "")({ data: { detail: "Please accept the booking conditions and cancellation policy." } });
        return;
      }
      button.disabled = true;
      api("POST", "/api/bookings", body)
        .then(function (data) { go(data.url, "booked"); })
        .catch(function (error) {
          /* A new price is shown before the booking is tried again. */
          if (error.status === 409) {
            api("POST", "/api/quote", stay()).then(function (data) { showQuote(data.quote, data.discount_pct); })
              .catch(function () {});
          }
          fail(button, "Your booking couldn't be completed — nothing was charged. Try again.")(error);
        });
    });
  }

  /* ---- trips: change dates, cancel ---- */

  var change = document.querySelector("form[data-change-dates]");
  if (change) {
    change.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = change.querySelector("button[type=submit]");
      clearAlert();
      button.disabled = true;
      api("PUT", "/api/bookings/" + change.dataset.changeDates + "/dates",
          { check_in: change.elements.check_in.value.trim(), check_out: change.elements.check_out.value.trim() })
        .then(function () { go(window.location.pathname, "dates_changed"); })
        .catch(fail(button, "Your dates couldn't be changed — try again"));
    });
  }

  var openCancel = document.querySelector("[data-cancel-open]");
  var confirmBox = document.querySelector("[data-cancel-confirm]");
  if (openCancel && confirmBox) {
    /* Whether the confirmation is open is in the address, so a reload or a sign-in comes back to it. */
    var confirming = function (open) {
      confirmBox.hidden = !open;
      openCancel.hidden = open;
      var url = new URL(window.location.href);
      if (open) url.searchParams.set("confirm", "cancel"); else url.searchParams.delete("confirm");
      window.history.replaceState(null, "", url.pathname + url.search);
    };
    openCancel.addEventListener("click", function () { confirming(true); });
    document.querySelector("[data-cancel-close]").addEventListener("click", function () { confirming(false); });
    if (new URLSearchParams(window.location.search).get("confirm") === "cancel") confirming(true);
    var yes = document.querySelector("[data-cancel]");
    yes.addEventListener("click", function () {
      clearAlert();
      yes.disabled = true;
      api("POST", "/api/bookings/" + yes.dataset.cancel + "/cancel")
        .then(function () { go(window.location.pathname, "cancelled"); })
        .catch(fail(yes, "The booking couldn't be cancelled — try again"));
    });
  }

  /* ---- flights ---- */

  var flight = document.querySelector("form[data-flight-booking]");
  if (flight) {
    flight.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = flight.querySelector("button[type=submit]");
      var card = flight.querySelector("input[name=card_id]:checked");
      clearAlert();
      button.disabled = true;
      var wanted = { flight_id: flight.dataset.flightBooking,
        first_name: flight.elements.first_name.value.trim(), last_name: flight.elements.last_name.value.trim(),
        card_id: card ? card.value : "" };
      if (flight.hasAttribute("data-fares")) {
        var fare = flight.querySelector("input[name=fare]:checked");
        var seat = flight.querySelector("input[name=seat]:checked");
        wanted.fare = fare ? fare.value : "";
        if (seat && !seat.disabled) wanted.seat = seat.value;
        wanted.bags = Number(flight.elements.bags.value);
      }
      api("POST", "/api/flight-bookings", wanted)
        .then(function (data) { go(data.url, "flight_booked"); })
        .catch(fail(button, "The flight couldn't be booked — try again"));
    });
    /* Fares: Basic has no seat choice (the seat map is off); the total follows the fare and the bags. */
    if (flight.hasAttribute("data-fares")) {
      var dollars = function (cents) {
        return "$" + (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
      };
      var refresh = function () {
        var fare = flight.querySelector("input[name=fare]:checked");
        var basic = !fare || fare.value === "basic";
        flight.querySelectorAll("input[name=seat]").forEach(function (seat) {
          seat.disabled = basic || seat.hasAttribute("data-taken");
          if (basic) seat.checked = false;
        });
        flight.querySelector("[data-seat-hint]").hidden = !basic;
        var total = Number(flight.dataset.price) + (fare ? Number(fare.dataset.extra) : 0)
          + Number(flight.elements.bags.value) * Number(flight.dataset.bag);
        document.querySelector("[data-flight-total]").textContent = dollars(total);
      };
      flight.addEventListener("change", refresh);
      refresh();
    }
  }

  /* ---- a fare held: the airline confirms after a moment ---- */

  var holdButton = document.querySelector("[data-hold]");
  if (holdButton) {
    var holdStatus = document.querySelector("[data-hold-status]");
    holdButton.addEventListener("click", function () {
      clearAlert();
      holdButton.disabled = true;
      holdStatus.textContent = "Asking the airline to hold your fare…";
      api("POST", "/api/fare-holds", { flight_id: holdButton.dataset.hold })
        .then(function () { window.location.reload(); })
        .catch(function (error) {
          holdStatus.textContent = "";
          fail(holdButton, "The fare couldn't be held — try again")(error);
        });
    });
  }

  /* ---- a streamed flight search: the other airlines' flights arrive one by one ---- */

  var stream = document.querySelector("[data-stream]");
  if (stream) {
    var list = document.querySelector("ol.tv-flights");
    var airlines = Number(stream.dataset.airlines);
    var cheapest = stream.querySelector("[data-cheapest]");
    var streamStatus = stream.querySelector("[data-stream-status]");
    var priceText = function (cents) {
      return "$" + (cents / 100).toLocaleString("en-US", { minimumFractionDigits: 2, maximumFractionDigits: 2 });
    };
    var card = function (f) {
      var li = document.createElement("li");
      li.dataset.price = String(f.price_cents);
      li.dataset.departs = f.departs;
      var article = document.createElement("article");
      article.className = "tv-card tv-flight";
      article.setAttribute("aria-label", f.airline + " " + f.number);
      var air = document.createElement("div"); air.className = "tv-fl-air";
      var name = document.createElement("b"); name.textContent = f.airline;
      var no = document.createElement("span"); no.className = "small muted"; no.textContent = f.number;
      air.append(name, no);
      var times = document.createElement("div"); times.className = "tv-fl-times";
      times.innerHTML = "<b></b> <span class=\"muted\"></span> <span class=\"tv-fl-line\" aria-hidden=\"true\"></span> <b></b> <span class=\"muted\"></span>";
      var parts = times.querySelectorAll("b, span.muted");
      parts[0].textContent = f.departs; parts[1].textContent = f.origin; parts[2].textContent = f.arrives; parts[3].textContent = f.destination;
      var stops = document.createElement("div"); stops.className = "tv-fl-stops";
      var badge = document.createElement("span");
      badge.className = f.stops ? "tv-badge-warn" : "tv-badge-ok";
      badge.textContent = f.stops ? "1 stop" : "Nonstop";
      var dur = document.createElement("span"); dur.className = "small muted";
      dur.textContent = Math.floor(f.duration_min / 60) + "h " + (f.duration_min % 60) + "m";
      stops.append(badge, dur);
      var side = document.createElement("div"); side.className = "tv-fl-price";
      var price = document.createElement("p"); price.className = "tv-price";
      var amount = document.createElement("b"); amount.textContent = priceText(f.price_cents);
      price.append(amount);
      var select = document.createElement("a");
      select.className = "btn tv-btn-primary"; select.href = "/flights/" + f.id + "/book"; select.textContent = "Select";
      select.setAttribute("aria-label", "Select " + f.airline + " " + f.number);
      side.append(price, select);
      article.append(air, times, stops, side);
      li.append(article);
      return li;
    };
    var place = function (li) {
      var byPrice = stream.dataset.sort !== "departure";
      var after = Array.prototype.find.call(list.children, function (other) {
        return byPrice ? Number(other.dataset.price || 0) > Number(li.dataset.price)
                       : (other.dataset.departs || "") > li.dataset.departs;
      });
      list.insertBefore(li, after || null);
    };
    list.querySelectorAll("li").forEach(function (li) {
      var shown = li.querySelector(".tv-price b");
      li.dataset.price = String(Math.round(Number(shown.textContent.replace(/[^0-9.]/g, "")) * 100));
      var dep = li.querySelector(".tv-fl-times b");
      li.dataset.departs = dep ? dep.textContent : "";
    });
    var next = function (batch) {
      if (batch >= airlines) return;
      var query = new URLSearchParams({ from: stream.dataset.from, to: stream.dataset.to, date: stream.dataset.date,
                                        batch: String(batch) });
      api("GET", "/api/flights/stream?" + query.toString()).then(function (data) {
        data.flights.forEach(function (f) {
          if (stream.dataset.nonstop && f.stops) return;
          place(card(f));
          var low = cheapest.dataset.cents ? Number(cheapest.dataset.cents) : Infinity;
          if (f.price_cents < low) { cheapest.dataset.cents = String(f.price_cents); cheapest.textContent = priceText(f.price_cents); }
        });
        if (data.done) {
          streamStatus.textContent = "All airlines searched";
          stream.setAttribute("aria-busy", "false");
          cheapest.parentNode.firstChild.textContent = "Cheapest fare ";
        } else {
          streamStatus.textContent = "Searching more airlines… (" + data.searched + " of " + airlines + " searched)";
          next(batch + 1);
        }
      }).catch(function () {
        streamStatus.textContent = "Some airlines didn't answer. Search again to see every flight.";
        stream.setAttribute("aria-busy", "false");
      });
    };
    next(1);
  }

  /* ---- a booked flight: upgrade, online check-in with a passport scan ---- */

  var upgrade = document.querySelector("[data-upgrade]");
  if (upgrade) {
    upgrade.addEventListener("click", function () {
      clearAlert();
      upgrade.disabled = true;
      api("POST", "/api/flight-bookings/" + upgrade.dataset.upgrade + "/upgrade")
        .then(function () { go(window.location.pathname, "upgraded"); })
        .catch(fail(upgrade, "The fare couldn't be upgraded — try again"));
    });
  }

  var checkIn = document.querySelector("form[data-check-in]");
  if (checkIn) {
    var passport = checkIn.querySelector("[data-passport]");
    var passportStatus = document.getElementById("passport-status");
    /* The scan is uploaded as soon as it is chosen; check-in waits for it. */
    passport.addEventListener("change", function () {
      delete passport.dataset.uploadId;
      var file = passport.files && passport.files[0];
      if (!file) { passportStatus.textContent = ""; return; }
      passportStatus.textContent = "Uploading " + file.name + "…";
      var reader = new FileReader();
      reader.onload = function () {
        var data = String(reader.result).split(",")[1] || "";
        api("POST", "/api/uploads", { name: file.name, content_type: file.type || "image/png", data: data })
          .then(function (made) {
            passport.dataset.uploadId = made.upload.id;
            passportStatus.textContent = file.name + " attached";
          })
          .catch(function (error) { passportStatus.textContent = "Could not upload " + file.name + ": " + reason(error, "try again"); });
      };
      reader.onerror = function () { passportStatus.textContent = "Could not read " + file.name; };
      reader.readAsDataURL(file);
    });
    checkIn.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = checkIn.querySelector("button[type=submit]");
      clearAlert();
      if (!passport.dataset.uploadId) {
        fail(null, "")({ data: { detail: "Add a scan of your passport first." } });
        return;
      }
      button.disabled = true;
      api("POST", "/api/flight-bookings/" + checkIn.dataset.checkIn + "/check-in", { passport_upload: passport.dataset.uploadId })
        .then(function () { go(window.location.pathname, "checked_in"); })
        .catch(fail(button, "You couldn't be checked in — try again"));
    });
  }

  /* ---- sharing a trip ---- */

  var shareForm = document.querySelector("form[data-share]");
  if (shareForm) {
    shareForm.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = shareForm.querySelector("button[type=submit]");
      clearAlert();
      button.disabled = true;
      api("POST", "/api/bookings/" + shareForm.dataset.share + "/shares",
          { email: shareForm.elements.email.value.trim(), access: shareForm.elements.access.value })
        .then(function () { go(window.location.pathname, "shared"); })
        .catch(fail(button, "The trip couldn't be shared — try again"));
    });
  }
  document.querySelectorAll("[data-unshare]").forEach(function (button) {
    button.addEventListener("click", function () {
      clearAlert();
      button.disabled = true;
      var trip = document.querySelector("form[data-share]").dataset.share;
      api("DELETE", "/api/bookings/" + trip + "/shares/" + button.dataset.unshare)
        .then(function () { go(window.location.pathname, "unshared"); })
        .catch(fail(button, "Sharing couldn't be stopped — try again"));
    });
  });
})();
