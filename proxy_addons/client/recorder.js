/* recorder: the agent's GUI actions (trusted events only), batched to config.actions.
   Kinds: click, input, key, scroll, navigation, tab_open. Each action carries `t` (ms since
   the epoch, from performance.timeOrigin) and `page` (location.pathname); the proxy turns
   `t` into t_ms since the episode opened. Listeners: window, capture phase, passive; they
   never cancel or change an event. */

var SPECIAL_KEYS = {
  Enter: 1, Tab: 1, Escape: 1, Backspace: 1, Delete: 1, ArrowUp: 1, ArrowDown: 1, ArrowLeft: 1,
  ArrowRight: 1, PageUp: 1, PageDown: 1, Home: 1, End: 1, " ": 0
};
var ACTIVATING = "a[href], button, input, select, textarea, summary, label, option, " +
  "[role=button], [role=link], [role=checkbox], [role=radio], [role=switch], [role=tab], " +
  "[role=menuitem], [role=option], [role=menuitemcheckbox], [role=menuitemradio], [tabindex]";
var FLUSH_MS = 250;
var SCROLL_IDLE_MS = 300;
var MAX_VALUE = 500;

function startRecorder() {
  var queue = [];
  var flushTimer = null;
  var pendingInput = null;
  var pendingScroll = null;
  var lastKey = null;
  var forwarded = null;

  function path() { return W.location.pathname; }

  function send(beacon) {
    cancel(flushTimer);
    flushTimer = null;
    if (!queue.length) { return; }
    var batch = queue;
    queue = [];
    post(config.actions, stringify({actions: batch}), beacon);
  }

  function push(action, t) {
    action.t = t || nowEpochMs();
    action.page = path();
    queue.push(action);
    // flush_ms 0: a fault's trigger counts these actions, so each goes out before whatever it causes.
    if (config.flush_ms === 0) { send(false); return; }
    if (!flushTimer) { flushTimer = later(function () { send(false); }, FLUSH_MS); }
  }

  function settle(except) {
    if (pendingInput && pendingInput.el !== except) {
      var p = pendingInput;
      pendingInput = null;
      push(p.action, p.t);
    }
    if (pendingScroll) {
      var s = pendingScroll;
      pendingScroll = null;
      cancel(s.timer);
      push(s.action(), s.t);
    }
  }

  function activating(node) {
    var el = node && node.nodeType === 1 ? node : (node && node.parentElement);
    if (!el) { return null; }
    var hit = el.closest ? el.closest(ACTIVATING) : null;
    return hit || el;
  }

  /* --- click --- */
  on("click", function (event) {
    if (!event.isTrusted) { return; }
    var el = activating(eventTarget(event));
    if (!el) { return; }
    if (forwarded && forwarded === el) { return; }  /* a label's click forwarded to its control */
    if (event.detail === 0 && lastKey && nowEpochMs() - lastKey.t < 1000) { return; }  /* Enter/Space activation */
    settle(null);
    push({kind: "click", target: describe(el), x: Math.round(event.clientX), y: Math.round(event.clientY),
          button: event.button});
    if (el.tagName === "LABEL" && el.control) {
      forwarded = el.control;
      later(function () { forwarded = null; }, 0);
    }
  }, true);

  /* --- input: one action per run of edits in one field --- */
  function fieldAction(el) {
    var type = (el.getAttribute("type") || el.tagName).toLowerCase();
    var value = el.tagName === "SELECT" ? el.value : String(el.value || "");
    var action = {kind: "input", target: describe(el), input_type: type, value_length: value.length};
    if (type !== "password") { action.value = value.slice(0, MAX_VALUE); }
    return action;
  }
  on("input", function (event) {
    if (!event.isTrusted) { return; }
    var el = eventTarget(event);
    if (!el || el.nodeType !== 1 || !("value" in el)) { return; }
    var type = (el.getAttribute("type") || "").toLowerCase();
    if (type === "checkbox" || type === "radio" || type === "file") { return; }
    settle(el);
    if (el.tagName === "SELECT") {
      push(fieldAction(el));
      return;
    }
    pendingInput = {el: el, t: nowEpochMs(), action: fieldAction(el)};
  }, true);
  on("change", function (event) {
    if (event.isTrusted && pendingInput && pendingInput.el === eventTarget(event)) { settle(null); }
  }, true);
  on("focusout", function (event) {
    if (pendingInput && pendingInput.el === eventTarget(event)) { settle(null); }
  }, true);

  /* --- keys: only those that are not typing (Enter, Tab, arrows ...) or come with a modifier --- */
  on("keydown", function (event) {
    if (!event.isTrusted) { return; }
    var mods = [];
    if (event.ctrlKey) { mods.push("Control"); }
    if (event.altKey) { mods.push("Alt"); }
    if (event.metaKey) { mods.push("Meta"); }
    var special = SPECIAL_KEYS[event.key] === 1 || /^F\d{1,2}$/.test(event.key);
    var modified = mods.length && ["Control", "Alt", "Meta", "Shift"].indexOf(event.key) < 0;
    if (event.key === " " && !(eventTarget(event) && "value" in eventTarget(event))) { special = true; }
    if (!special && !modified) { return; }
    if (event.shiftKey) { mods.push("Shift"); }
    settle(null);
    var t = nowEpochMs();
    lastKey = {t: t};
    push({kind: "key", key: event.key, modifiers: mods, target: describe(activating(eventTarget(event)))}, t);
  }, true);

  /* --- scroll: one action per burst, per scroller --- */
  on("scroll", function (event) {
    if (nowEpochMs() < quietScrollUntil) { return; }
    var node = event.target;
    var doc = node === D || node === D.documentElement || node === D.body;
    var el = doc ? null : node;
    if (el && el.nodeType !== 1) { return; }
    var pos = function () {
      return doc ? {x: Math.round(W.scrollX), y: Math.round(W.scrollY)}
                 : {x: Math.round(el.scrollLeft), y: Math.round(el.scrollTop)};
    };
    if (pendingScroll && pendingScroll.el !== el) { settle(null); }
    if (pendingScroll) {
      cancel(pendingScroll.timer);
    } else {
      if (pendingInput) { settle(null); }
      var start = lastScroll(el);
      pendingScroll = {
        el: el, t: nowEpochMs(), start: start,
        action: function () {
          var end = pos();
          remember(el, end);
          return {kind: "scroll", target: el ? describe(el) : null, x: end.x, y: end.y,
                  dx: end.x - start.x, dy: end.y - start.y};
        }
      };
    }
    pendingScroll.timer = later(function () { settle(null); }, SCROLL_IDLE_MS);
  }, true);
  var scrolled = new WeakMap();
  var docScroll = {x: Math.round(W.scrollX), y: Math.round(W.scrollY)};
  function lastScroll(el) {
    if (!el) { return docScroll; }
    return scrolled.get(el) || {x: 0, y: 0};
  }
  function remember(el, p) {
    if (el) { scrolled.set(el, p); } else { docScroll = p; }
  }

  /* --- navigation and tabs --- */
  function url() { return W.location.pathname + W.location.search + W.location.hash; }
  var nav = perf.getEntriesByType ? perf.getEntriesByType("navigation")[0] : null;
  var navType = nav ? nav.type : "navigate";
  var top = W.top === W;
  /* A tab's first page: nothing before it, or only a blank page (what automation opens first). */
  var navApi = W.navigation;
  var firstOfTab = W.history.length === 1 || (W.history.length === 2 && !D.referrer && navApi &&
    navApi.currentEntry && navApi.currentEntry.index === 0);
  if (top && navType === "navigate" && firstOfTab) {
    push({kind: "tab_open", url: url(), opener: !!W.opener});
  }
  var referrer = null;
  try {
    var ref = D.referrer ? new URL(D.referrer) : null;
    referrer = ref && ref.origin === W.location.origin ? ref.pathname + ref.search : (ref ? ref.origin : null);
  } catch (e) { referrer = null; }
  push({kind: "navigation", url: url(), nav_type: navType, referrer: referrer, frame: !top});
  var lastUrl = url();
  function sameDocument() {
    var now = url();
    if (now === lastUrl) { return; }
    lastUrl = now;
    settle(null);
    push({kind: "navigation", url: now, nav_type: "same_document", referrer: null, frame: !top});
  }
  on("popstate", sameDocument, true);
  on("hashchange", sameDocument, true);

  /* --- leaving: everything goes out in a beacon --- */
  function leave() {
    settle(null);
    send(true);
  }
  on("pagehide", leave, true);
  on("visibilitychange", function () { if (D.visibilityState === "hidden") { leave(); } }, true);
}
