/* The site kit's scripts, shared by every site: the JSON API helper, alerts, error wording, notices.
   Each site's own script (/static/<site>.js, loaded after this one) uses them as window.Kit. */
(function () {
  "use strict";

  /* Call the site's JSON API; a 401 sends the user to sign in and back here afterwards.
     Resolves with the parsed JSON; rejects with an Error carrying .status and .data. */
  function api(method, url, body) {
    var options = { method: method, headers: { Accept: "application/json" }, credentials: "same-origin" };
    if (body !== undefined) {
      options.headers["Content-Type"] = "application/json";
      options.body = JSON.stringify(body);
    }
    return fetch(url, options).then(function (response) {
      if (response.status === 401) {
        var here = window.location.pathname + window.location.search;
        window.location.assign("/login?next=" + encodeURIComponent(here) + "&expired=1");
      }
      return response.text().then(function (text) {
        var data = null;
        try { data = text ? JSON.parse(text) : null; } catch (err) { data = null; }
        if (!response.ok || data === null) {
          var error = new Error("request failed with status " + response.status);
          error.status = response.status;
          error.data = data;
          throw error;
        }
        return data;
      });
    });
  }

  /* Put a message in an alert element and show it. */
  function show(el, message) {
    if (!el) return;
    el.textContent = message;
    el.hidden = false;
  }

  /* Empty an alert element (and hide it, if asked). */
  function clear(el, hide) {
    if (!el) return;
    el.textContent = "";
    if (hide) el.hidden = true;
  }

  /* The server's words for what went wrong (a FastAPI `detail`: a string, or the first validation error
     with the field it names), else `fallback`. */
  function reason(error, fallback) {
    var detail = error && error.data && error.data.detail;
    if (typeof detail === "string" && detail) return detail;
    if (Array.isArray(detail) && detail.length) {
      var first = detail[0];
      var msg = String(first.msg || "").replace(/^Value error, /, "");
      var where = (first.loc || []).filter(function (part) { return part !== "body"; }).join(" ").replace(/_/g, " ");
      return msg ? (where ? where + ": " + msg : msg) : fallback;
    }
    return fallback;
  }

  /* `path` on this site with its `?notice=` (the flash message the next page shows) replaced by `notice`
     (null drops it; leaving `notice` out keeps the one `path` names). */
  function withNotice(path, notice, hash) {
    var url = new URL(path, window.location.origin);
    if (notice !== undefined) url.searchParams.delete("notice");
    if (notice) url.searchParams.set("notice", notice);
    return url.pathname + url.search + (hash ? "#" + hash : "");
  }

  /* Go to `path`, showing `notice` there. */
  function go(path, notice, hash) {
    window.location.assign(withNotice(path, notice, hash));
  }

  /* A handler for a failed call: enable `button` again and say why in the page's alert box. */
  function fail(button, fallback) {
    return function (error) {
      if (button) button.disabled = false;
      show(document.querySelector("main [data-alert]"), reason(error, fallback));
    };
  }

  /* A form field's value, trimmed ("" when the form has no such field). */
  function value(form, name) {
    var field = form.elements[name];
    return field ? String(field.value).trim() : "";
  }

  /* Send each form matching `selector` as a JSON call: `send(form)` makes the call (and goes somewhere when
     it succeeds) or throws an Error whose message the alert box shows; a refused call shows the server's
     words, else `fallback`. */
  function wire(selector, send, fallback) {
    document.querySelectorAll(selector).forEach(function (form) {
      form.addEventListener("submit", function (event) {
        event.preventDefault();
        var button = form.querySelector("button[type=submit]");
        clear(document.querySelector("main [data-alert]"), true);
        var status = document.querySelector("main [data-status]");
        if (status) status.textContent = "";
        var call;
        try { call = send(form); } catch (err) { fail(button, fallback)({ data: { detail: err.message } }); return; }
        if (button) button.disabled = true;
        call.catch(fail(button, fallback));
      });
    });
  }

  window.Kit = { api: api, show: show, clear: clear, reason: reason, withNotice: withNotice, go: go, fail: fail,
                 value: value, wire: wire };
})();
