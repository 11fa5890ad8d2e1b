/* webchaos client faults. Injected inline by the proxy inside a wrapper that defines
   WEBCHAOS_CONFIG = {faults: [{id, type, params, target: {selector, role, name}}], report}.
   No globals, no console output. */
(function (config) {
  "use strict";

  var WAIT_MS = 5000;
  var POLL_MS = 200;
  var sendFetch = window.fetch ? window.fetch.bind(window) : null;

  function deepFreeze(value) {
    if (value && typeof value === "object" && !Object.isFrozen(value)) {
      Object.keys(value).forEach(function (key) { deepFreeze(value[key]); });
      Object.freeze(value);
    }
    return value;
  }
  deepFreeze(config);

  function clean(text) {
    return String(text || "").replace(/\s+/g, " ").trim();
  }

  function report(fault, event, extra) {
    var payload = {
      fault_id: fault.id,
      type: fault.type,
      event: event,
      target: {selector: fault.target.selector, role: fault.target.role, name: fault.target.name}
    };
    Object.keys(extra || {}).forEach(function (key) { payload[key] = extra[key]; });
    var body = JSON.stringify(payload);
    try {
      if (sendFetch) {
        sendFetch(config.report, {
          method: "POST", keepalive: true, credentials: "same-origin",
          headers: {"content-type": "application/json"}, body: body
        }).catch(function () { /* best effort */ });
        return;
      }
    } catch (e) { /* fall back to a beacon */ }
    try {
      navigator.sendBeacon(config.report, new Blob([body], {type: "application/json"}));
    } catch (e) { /* nothing else to try */ }
  }

  /* ---- finding the target: a CSS selector, or an ARIA role plus accessible name ---- */

  var IMPLICIT_ROLES = {
    button: "button, input[type=button], input[type=submit], input[type=reset], input[type=image], summary",
    link: "a[href], area[href]",
    textbox: "input:not([type]), input[type=text], input[type=email], input[type=tel], input[type=url], " +
             "input[type=password], textarea",
    searchbox: "input[type=search]",
    checkbox: "input[type=checkbox]",
    radio: "input[type=radio]",
    combobox: "select",
    heading: "h1, h2, h3, h4, h5, h6",
    img: "img[alt]",
    navigation: "nav",
    main: "main",
    form: "form",
    list: "ul, ol",
    listitem: "li",
    table: "table",
    row: "tr",
    dialog: "dialog"
  };

  function accessibleName(el) {
    var label = el.getAttribute("aria-label");
    if (label) { return clean(label); }
    var ids = el.getAttribute("aria-labelledby");
    if (ids) {
      return clean(ids.split(/\s+/).map(function (id) {
        var ref = document.getElementById(id);
        return ref ? ref.textContent : "";
      }).join(" "));
    }
    var tag = el.tagName.toLowerCase();
    if (tag === "input") {
      var type = (el.getAttribute("type") || "text").toLowerCase();
      if (type === "button" || type === "submit" || type === "reset") {
        return clean(el.value || (type === "submit" ? "Submit" : type === "reset" ? "Reset" : ""));
      }
      if (type === "image") { return clean(el.getAttribute("alt")); }
    }
    if (el.labels && el.labels.length) { return clean(el.labels[0].textContent); }
    if (tag === "img") { return clean(el.getAttribute("alt")); }
    var text = clean(el.textContent);
    if (text) { return text; }
    return clean(el.getAttribute("title") || el.getAttribute("placeholder"));
  }

  function visible(el) {
    return !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
  }

  function byRole(role, name) {
    var selector = "[role=\"" + role.replace(/"/g, "") + "\"]";
    if (IMPLICIT_ROLES[role]) { selector += ", " + IMPLICIT_ROLES[role]; }
    var all = Array.prototype.slice.call(document.querySelectorAll(selector));
    all = all.filter(visible);
    if (!name) { return all[0] || null; }
    var wanted = clean(name).toLowerCase();
    var exact = all.filter(function (el) { return accessibleName(el).toLowerCase() === wanted; });
    if (exact.length) { return exact[0]; }
    var partial = all.filter(function (el) { return accessibleName(el).toLowerCase().indexOf(wanted) >= 0; });
    return partial[0] || null;
  }

  function findTarget(fault) {
    var t = fault.target;
    if (t.selector) {
      try { return document.querySelector(t.selector); } catch (e) { return null; }
    }
    if (t.role) { return byRole(t.role, t.name); }
    return document.body || document.documentElement;
  }

  function waitForTarget(fault, done) {
    var found = findTarget(fault);
    if (found) { done(found); return; }
    var finished = false;
    var observer = null;
    var poll = null;
    var timer = null;
    function finish(el) {
      if (finished) { return; }
      finished = true;
      if (observer) { observer.disconnect(); }
      clearInterval(poll);
      clearTimeout(timer);
      done(el);
    }
    function check() {
      var el = findTarget(fault);
      if (el) { finish(el); }
    }
    if (window.MutationObserver) {
      observer = new MutationObserver(check);
      observer.observe(document.documentElement, {childList: true, subtree: true, attributes: true});
    }
    poll = setInterval(check, POLL_MS);
    timer = setTimeout(function () { finish(null); }, WAIT_MS);
  }

  /* ---- the overlay ---- */

  var TEXTS = {
    cookie: "We and our partners use cookies to personalise content and analyse traffic. " +
            "Choose whether you accept them before you continue.",
    newsletter: "Get our best deals first: sign up for the weekly newsletter.",
    chat: "Hi there! Do you need help finding something? Our assistants are online."
  };

  function css(el, text) { el.style.cssText = text; return el; }

  function showOverlay(fault, occurrence) {
    var p = fault.params;
    var host = css(document.createElement("div"),
      "position:fixed;top:0;left:0;right:0;bottom:0;z-index:2147483647;margin:0;padding:0;");
    host.setAttribute("data-webchaos-overlay", fault.id);
    var root = host.attachShadow ? host.attachShadow({mode: "open"}) : host;

    var backdrop = css(document.createElement("div"),
      "position:fixed;top:0;left:0;right:0;bottom:0;background:rgba(0,0,0,0.45);" +
      "display:flex;align-items:center;justify-content:center;pointer-events:auto;");
    var dialog = css(document.createElement("div"),
      "position:relative;background:#fff;color:#111;max-width:420px;width:calc(100% - 48px);" +
      "padding:24px;border-radius:8px;box-shadow:0 8px 32px rgba(0,0,0,0.35);" +
      "font:15px/1.45 system-ui,sans-serif;text-align:left;");
    dialog.setAttribute("role", "dialog");
    dialog.setAttribute("aria-modal", "true");
    dialog.setAttribute("aria-label", p.title);
    dialog.tabIndex = -1;

    var heading = css(document.createElement("h2"), "margin:0 0 8px;font-size:18px;");
    heading.textContent = p.title;
    var text = css(document.createElement("p"), "margin:0 0 16px;");
    text.textContent = TEXTS[p.kind] || TEXTS.cookie;

    var dismiss = css(document.createElement("button"),
      "padding:8px 16px;border:0;border-radius:4px;background:#1a56db;color:#fff;font:inherit;cursor:pointer;");
    dismiss.type = "button";
    dismiss.textContent = p.dismiss_label;

    var close = css(document.createElement("button"),
      "position:absolute;top:8px;right:8px;border:0;background:transparent;font:20px/1 sans-serif;" +
      "cursor:pointer;color:#444;");
    close.type = "button";
    close.setAttribute("aria-label", "Close");
    close.textContent = "\u00d7";

    dialog.appendChild(close);
    dialog.appendChild(heading);
    dialog.appendChild(text);
    dialog.appendChild(dismiss);
    backdrop.appendChild(dialog);
    root.appendChild(backdrop);

    var gone = false;
    function remove(via) {
      if (gone) { return; }
      gone = true;
      if (host.parentNode) { host.parentNode.removeChild(host); }
      report(fault, "dismissed", {occurrence: occurrence, via: via});
      if (p.returns_once && occurrence === 1) {
        setTimeout(function () { showOverlay(fault, 2); }, Math.max(p.delay_ms, 1000));
      }
    }
    dismiss.addEventListener("click", function () { remove("dismiss"); });
    close.addEventListener("click", function () { remove("close"); });

    (document.body || document.documentElement).appendChild(host);
    try { dismiss.focus({preventScroll: true}); } catch (e) { /* focus is cosmetic */ }
    report(fault, "fired", {occurrence: occurrence});
  }

  var RUNNERS = {overlay: showOverlay};

  function start() {
    config.faults.forEach(function (fault) {
      var run = RUNNERS[fault.type];
      if (!run) { return; }
      waitForTarget(fault, function (el) {
        if (!el) {
          report(fault, "target_missing", {});
          return;
        }
        setTimeout(function () { run(fault, 1); }, fault.params.delay_ms || 0);
      });
    });
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})(WEBCHAOS_CONFIG);
