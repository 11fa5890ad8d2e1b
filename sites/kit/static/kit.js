/* The site kit's scripts, shared by every site: the JSON API helper and the alert helpers.
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

  window.Kit = { api: api, show: show, clear: clear };
})();
