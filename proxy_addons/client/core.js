/* webchaos client core. Injected inline by the proxy inside one IIFE that first defines
   WEBCHAOS_CONFIG = {faults: [{id, type, params, target: {selector, role, name}}], report, actions},
   then this file, then one file per armed fault family (each adds RUNNERS[type]), then
   recorder.js when actions are recorded, then `boot();`.
   Rules: no globals, no console output, capture-phase listeners on window only, our own
   elements are known through a WeakMap (never marked in the DOM). */

var config = WEBCHAOS_CONFIG;
var W = window;
var D = document;
var later = W.setTimeout.bind(W);
var cancel = W.clearTimeout.bind(W);
var every = W.setInterval.bind(W);
var stopEvery = W.clearInterval.bind(W);
var stringify = JSON.stringify;
var sendFetch = W.fetch ? W.fetch.bind(W) : null;
var sendBeacon = W.navigator && W.navigator.sendBeacon ? W.navigator.sendBeacon.bind(W.navigator) : null;
var perf = W.performance;
var Observer = W.MutationObserver;
var WAIT_MS = 10000;
var POLL_MS = 200;
var RUNNERS = {};
var OWNED = new WeakMap();  /* element -> fault id, for elements a fault created */
var quietScrollUntil = 0;  /* scrolls a fault causes are not the agent's */

(function removeOwnTag() {
  var me = D.currentScript;
  if (me && me.parentNode) { me.parentNode.removeChild(me); }
})();

function deepFreeze(value) {
  if (value && typeof value === "object" && !Object.isFrozen(value)) {
    Object.keys(value).forEach(function (key) { deepFreeze(value[key]); });
    Object.freeze(value);
  }
  return value;
}
deepFreeze(config);

function nowEpochMs() { return perf.timeOrigin + perf.now(); }

function clean(text) {
  return String(text || "").replace(/\s+/g, " ").trim();
}

function css(el, text) { el.style.cssText = text; return el; }

function own(el, fault) { OWNED.set(el, fault.id); return el; }

function ownerOf(node) {
  for (var n = node; n; n = n.parentNode || (n.host || null)) {
    if (n.nodeType === 1 && OWNED.has(n)) { return OWNED.get(n); }
  }
  return null;
}

function on(type, fn, passive) {
  W.addEventListener(type, fn, {capture: true, passive: !!passive});
}

function off(type, fn) {
  W.removeEventListener(type, fn, {capture: true});
}

function post(path, body, beacon) {
  try {
    if (beacon && sendBeacon) {
      if (sendBeacon(path, new Blob([body], {type: "application/json"}))) { return; }
    }
    if (sendFetch) {
      sendFetch(path, {
        method: "POST", keepalive: true, credentials: "same-origin",
        headers: {"content-type": "application/json"}, body: body
      }).catch(function () { /* best effort */ });
    }
  } catch (e) { /* nothing else to try */ }
}

/* ---- describing elements: role, accessible name, a CSS path ---- */

var IMPLICIT_ROLES = {
  button: "button, input[type=button], input[type=submit], input[type=reset], input[type=image], summary",
  link: "a[href], area[href]",
  // Any input is a candidate: roleOf decides (date and time inputs are textboxes, one with a datalist a combobox).
  textbox: "input, textarea",
  searchbox: "input[type=search]",
  spinbutton: "input[type=number]",
  checkbox: "input[type=checkbox]",
  radio: "input[type=radio]",
  combobox: "select, input[list]",
  option: "option",
  heading: "h1, h2, h3, h4, h5, h6",
  img: "img[alt]",
  navigation: "nav",
  main: "main",
  form: "form",
  list: "ul, ol",
  listitem: "li",
  table: "table",
  row: "tr",
  dialog: "dialog",
  group: "fieldset",
  complementary: "aside",
  article: "article"
};

// As HTML-AAM (and Playwright's getByRole) map inputs: a type not listed is a textbox (date, time, month ...),
// a hidden input has no role, and a text-like input tied to a <datalist> is a combobox.
var INPUT_ROLES = {
  button: "button", submit: "button", reset: "button", image: "button", checkbox: "checkbox",
  radio: "radio", search: "searchbox", number: "spinbutton", range: "slider", hidden: null
};
var LIST_INPUT_TYPES = ["text", "search", "email", "tel", "url"];

function inputRole(el) {
  var type = (el.getAttribute("type") || "text").toLowerCase();
  var list = el.getAttribute("list");
  if (list && LIST_INPUT_TYPES.indexOf(type) >= 0) {
    var options = D.getElementById(list);
    if (options && options.tagName === "DATALIST") { return "combobox"; }
  }
  return type in INPUT_ROLES ? INPUT_ROLES[type] : "textbox";
}

function roleOf(el) {
  var explicit = el.getAttribute && el.getAttribute("role");
  if (explicit) { return explicit.split(/\s+/)[0]; }
  var tag = el.tagName.toLowerCase();
  if (tag === "input") { return inputRole(el); }
  if (tag === "a" || tag === "area") { return el.hasAttribute("href") ? "link" : null; }
  if (tag === "select") { return el.multiple || el.size > 1 ? "listbox" : "combobox"; }
  if (tag === "img") { return el.getAttribute("alt") === "" ? "presentation" : "img"; }
  if (/^h[1-6]$/.test(tag)) { return "heading"; }
  var plain = {
    button: "button", summary: "button", textarea: "textbox", option: "option", nav: "navigation",
    main: "main", form: "form", ul: "list", ol: "list", li: "listitem", table: "table", tr: "row",
    dialog: "dialog", fieldset: "group", aside: "complementary", article: "article"
  };
  return plain[tag] || null;
}

function accessibleName(el) {
  var label = el.getAttribute("aria-label");
  if (label) { return clean(label); }
  var ids = el.getAttribute("aria-labelledby");
  if (ids) {
    var root = el.getRootNode ? el.getRootNode() : D;
    return clean(ids.split(/\s+/).map(function (id) {
      var ref = root.getElementById ? root.getElementById(id) : D.getElementById(id);
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
  if (tag === "input" || tag === "select" || tag === "textarea") {
    return clean(el.getAttribute("title") || el.getAttribute("placeholder"));
  }
  var text = clean(el.textContent);
  if (text) { return text; }
  return clean(el.getAttribute("title"));
}

function cssEscape(text) {
  return W.CSS && W.CSS.escape ? W.CSS.escape(text) : String(text).replace(/[^\w-]/g, "\\$&");
}

function cssPath(el) {
  var parts = [];
  var root = el.getRootNode ? el.getRootNode() : D;
  while (el && el.nodeType === 1 && parts.length < 10) {
    var tag = el.tagName.toLowerCase();
    if (el.id && root.querySelectorAll && root.querySelectorAll("#" + cssEscape(el.id)).length === 1) {
      parts.unshift("#" + cssEscape(el.id));
      break;
    }
    if (tag === "html" || tag === "body") { parts.unshift(tag); break; }
    var parent = el.parentElement;
    if (!parent) { parts.unshift(tag); break; }
    var same = Array.prototype.filter.call(parent.children, function (c) { return c.tagName === el.tagName; });
    parts.unshift(same.length > 1 ? tag + ":nth-of-type(" + (same.indexOf(el) + 1) + ")" : tag);
    el = parent;
  }
  return parts.join(" > ");
}

function describe(el) {
  if (!el || el.nodeType !== 1) { return null; }
  var out = {role: roleOf(el), name: accessibleName(el).slice(0, 120), selector: cssPath(el),
             tag: el.tagName.toLowerCase()};
  var fault = ownerOf(el);
  if (fault) { out.fault_id = fault; }
  return out;
}

function visible(el) {
  return !!(el.offsetWidth || el.offsetHeight || el.getClientRects().length);
}

function byRole(role, name, scope) {
  var selector = "[role=\"" + role.replace(/"/g, "") + "\"]";
  if (IMPLICIT_ROLES[role]) { selector += ", " + IMPLICIT_ROLES[role]; }
  var all = Array.prototype.slice.call((scope || D).querySelectorAll(selector));
  all = all.filter(function (el) { return roleOf(el) === role && visible(el) && !ownerOf(el); });
  if (!name) { return all[0] || null; }
  var wanted = clean(name).toLowerCase();
  var exact = all.filter(function (el) { return accessibleName(el).toLowerCase() === wanted; });
  if (exact.length) { return exact[0]; }
  var partial = all.filter(function (el) { return accessibleName(el).toLowerCase().indexOf(wanted) >= 0; });
  return partial[0] || null;
}

function bySelector(selector) {
  try { return D.querySelector(selector); } catch (e) { return null; }
}

/* As the agent's grounding scopes a step: the last (innermost) container whose text holds `text`. */
var CONTAINERS = "article, section, li, tr, form, fieldset, [role=region], [role=group], [role=listitem]";

/* The element `role` + `name` inside the last container whose text has `text` and that holds such an
   element (another record may name the same thing and lack the control), as the reference agent scopes. */
function withinContainer(text, role, name) {
  var all = Array.prototype.slice.call(D.querySelectorAll(CONTAINERS));
  var wanted = clean(text).toLowerCase();
  for (var i = all.length - 1; i >= 0; i--) {
    if (clean(all[i].textContent || "").toLowerCase().indexOf(wanted) < 0) { continue; }
    var found = byRole(role, name, all[i]);
    if (found) { return found; }
  }
  return null;
}

function findTarget(target) {
  if (target.selector) { return bySelector(target.selector); }
  if (target.role && target.within) { return withinContainer(target.within, target.role, target.name); }
  if (target.role) { return byRole(target.role, target.name); }
  return D.body || null;
}

var FIELD_ROLES = ["textbox", "searchbox", "spinbutton", "combobox"];

/* A field named by a CSS selector, or else by its accessible name. */
function findField(spec) {
  var el = bySelector(spec);
  if (el) { return el; }
  for (var i = 0; i < FIELD_ROLES.length; i++) {
    el = byRole(FIELD_ROLES[i], spec);
    if (el) { return el; }
  }
  return null;
}

function within(container, node) {
  for (var n = node; n; n = n.parentNode || (n.host || null)) {
    if (n === container) { return true; }
  }
  return false;
}

function eventTarget(event) {
  var path = event.composedPath ? event.composedPath() : [];
  return path.length ? path[0] : event.target;
}

/* Cancel trusted clicks on `el` while `take(event)` says so: no default action, no page listener. */
function interceptClicks(el, take) {
  function onClick(event) {
    if (!event.isTrusted || !within(el, eventTarget(event))) { return; }
    if (!take(event)) { return; }
    event.preventDefault();
    event.stopImmediatePropagation();
  }
  on("click", onClick, false);
  return function () { off("click", onClick); };
}

/* ---- reporting to the ledger ---- */

function report(fault, event, extra) {
  var payload = {
    fault_id: fault.id, type: fault.type, event: event,
    target: {selector: fault.target.selector, role: fault.target.role, name: fault.target.name}
  };
  Object.keys(extra || {}).forEach(function (key) { payload[key] = extra[key]; });
  post(config.report, stringify(payload), false);
}

/* ---- triggers: target present -> typed into a field -> n clicks on the target -> delay ---- */

function waitFor(find, timeoutMs, done) {
  var found = find();
  if (found) { done(found); return; }
  var finished = false;
  var observer = null;
  var poll = null;
  var timer = null;
  function finish(el) {
    if (finished) { return; }
    finished = true;
    if (observer) { observer.disconnect(); }
    stopEvery(poll);
    cancel(timer);
    done(el);
  }
  function check() {
    var el = find();
    if (el) { finish(el); }
  }
  if (Observer) {
    observer = new Observer(check);
    observer.observe(D.documentElement, {childList: true, subtree: true, attributes: true, characterData: true});
  }
  poll = every(check, POLL_MS);
  timer = later(function () { finish(null); }, timeoutMs);
}

function afterInput(fault, done) {
  var spec = fault.params.after_input_in;
  if (!spec) { done(); return; }
  function onInput(event) {
    if (!event.isTrusted) { return; }
    var field = findField(spec);
    if (field && within(field, eventTarget(event))) {
      off("input", onInput);
      done();
    }
  }
  on("input", onInput, true);
}

/* `done(inClick)`: true when the last click wanted is what calls it, within that click. */
function afterClicks(fault, el, done) {
  var wanted = fault.params.after_clicks || 0;
  if (!wanted) { done(false); return; }
  var seen = 0;
  function onClick(event) {
    if (!event.isTrusted || !within(el, eventTarget(event))) { return; }
    seen += 1;
    if (seen >= wanted) {
      off("click", onClick);
      done(true);
    }
  }
  on("click", onClick, true);
}

function whenReady(fn) {
  if (D.readyState === "loading") {
    D.addEventListener("DOMContentLoaded", function () { fn(); }, {once: true});
  } else {
    fn();
  }
}

function arm(fault) {
  var run = RUNNERS[fault.type];
  if (!run) { return; }
  var t = fault.target;
  var hasTarget = !!(t.selector || t.role);
  function go(el) {
    if (!el) {
      report(fault, "target_missing", {});
      return;
    }
    afterInput(fault, function () {
      afterClicks(fault, el, function (inClick) {
        function act() {
          try { run(fault, el); } catch (e) { report(fault, "target_missing", {info: {error: String(e).slice(0, 120)}}); }
        }
        /* A click with no delay after it acts within the click, before its default action: a link's click
           starts leaving the page, and what a page on its way out does a moment later may never happen (a tab
           it opens, one popup blockers allow only within a click). */
        if (inClick && !fault.params.delay_ms) { act(); } else { later(act, fault.params.delay_ms || 0); }
      });
    });
  }
  if (hasTarget) {
    waitFor(function () { return findTarget(t); }, WAIT_MS, go);
  } else {
    whenReady(function () { go(D.body || D.documentElement); });
  }
}

/* An offer's choice rides on the page's next write (a non-GET fetch), as a form sends its boxes:
   `?<field_name>=<offer>` when taken, `=none` when declined (dark.js, layout.js). One carry waits at a time;
   its value is read as the write goes out. */
var carryPending = null;  /* {fault, value: function () -> offer or "none", via, info} */

function carryWrites() {
  if (carryWrites.done || !W.fetch) { return; }
  carryWrites.done = true;
  var pageFetch = W.fetch;
  W.fetch = function (input, init) {
    var method = String((init && init.method) || (input && input.method) || "GET").toUpperCase();
    if (carryPending && method !== "GET" && method !== "HEAD" && typeof input === "string") {
      var pending = carryPending;
      carryPending = null;
      var value = pending.value();
      input += (input.indexOf("?") >= 0 ? "&" : "?") + encodeURIComponent(pending.fault.params.field_name) +
               "=" + encodeURIComponent(value);
      var info = {};
      Object.keys(pending.info).forEach(function (key) { info[key] = pending.info[key]; });
      info.taken = value !== "none";
      info.offer = value;
      report(pending.fault, value === "none" ? "dismissed" : "hit", {via: pending.via, info: info});
    }
    return pageFetch.apply(this, [input].concat(Array.prototype.slice.call(arguments, 1)));
  };
}

function carryOnNextWrite(fault, value, via, info) {
  carryWrites();
  carryPending = {fault: fault, value: value, via: via, info: info || {}};
}

function carryIsPending() { return carryPending !== null; }

/* Elements we add: plain, self-styled, never marked in the DOM. */
function make(fault, tag, style, text) {
  var el = own(D.createElement(tag), fault);
  if (style) { css(el, style); }
  if (text) { el.textContent = text; }
  return el;
}

function boot() {
  if (typeof startRrweb === "function" && config.rrweb) { startRrweb(); }
  if (typeof startRecorder === "function" && config.actions) { startRecorder(); }
  config.faults.forEach(arm);
}
