/* visibility: hide_affordance, delayed_render, skeleton, disabled_until, transient_flash. */

RUNNERS.hide_affordance = function (fault, el) {
  var p = fault.params;
  var wrap = make(fault, "span", "position:relative;display:inline-block;");
  var toggle = make(fault, "button",
    "padding:8px 14px;border:1px solid #c9ced6;border-radius:8px;background:#fff;color:#1b1f24;" +
    "font:inherit;cursor:pointer;", p.menu_label + " \u22ef");
  toggle.type = "button";
  toggle.setAttribute("aria-label", p.menu_label);
  toggle.setAttribute("aria-haspopup", "menu");
  toggle.setAttribute("aria-expanded", "false");
  var menu = make(fault, "div",
    "display:none;position:absolute;top:calc(100% + 6px);left:0;z-index:1000;min-width:180px;padding:8px;" +
    "background:#fff;border:1px solid #c9ced6;border-radius:8px;box-shadow:0 8px 24px rgba(0,0,0,0.18);");
  el.parentNode.insertBefore(wrap, el);
  wrap.appendChild(toggle);
  wrap.appendChild(menu);
  menu.appendChild(el);
  var opens = 0;
  toggle.addEventListener("click", function () {
    var open = menu.style.display === "none";
    menu.style.display = open ? "block" : "none";
    toggle.setAttribute("aria-expanded", open ? "true" : "false");
    if (open) {
      opens += 1;
      report(fault, "hit", {occurrence: opens, touched: describe(el), via: "menu"});
    }
  });
  report(fault, "fired", {touched: describe(el), info: {menu_label: p.menu_label}});
};

/* `afterLastInput`: each input event on a form field restarts the wait. Untrusted ones count too
   (Playwright's select_option dispatches them from script); `change` does not, since it fires when
   focus leaves a field, which is also what reaching for the target does. */
function hideFor(fault, el, ms, never, hide, show, afterLastInput) {
  hide();
  var info = {hidden_ms: never ? null : ms};
  if (afterLastInput) { info.after_last_input = true; }
  report(fault, "fired", {touched: describe(el), info: info});
  if (never) { return; }
  var inputs = 0;
  var timer = null;
  function restore() {
    if (afterLastInput) { off("input", onInput); }
    show();
    var extra = {touched: describe(el)};
    if (afterLastInput) { extra.info = {inputs: inputs}; }
    report(fault, "restored", extra);
  }
  function onInput(event) {
    if (!isFormField(eventTarget(event))) { return; }
    inputs += 1;
    cancel(timer);
    timer = later(restore, ms);
  }
  if (afterLastInput) { on("input", onInput, true); }
  timer = later(restore, ms);
}

function isFormField(node) {
  var tag = node && node.nodeType === 1 ? node.tagName : "";
  return tag === "INPUT" || tag === "TEXTAREA" || tag === "SELECT";
}

RUNNERS.delayed_render = function (fault, el) {
  var p = fault.params;
  var old = el.style.getPropertyValue("visibility");
  var prio = el.style.getPropertyPriority("visibility");
  hideFor(fault, el, p.render_after_ms, p.never,
    function () { el.style.setProperty("visibility", "hidden", "important"); },
    function () {
      if (old) { el.style.setProperty("visibility", old, prio); } else { el.style.removeProperty("visibility"); }
    },
    p.after_last_input);
};

RUNNERS.skeleton = function (fault, el) {
  var p = fault.params;
  var block = null;
  try { block = el.closest(p.block_selector); } catch (e) { block = null; }
  block = block || el;
  var rect = block.getBoundingClientRect();
  var bars = make(fault, "div", "box-sizing:border-box;padding:8px 0;min-height:" +
    Math.max(48, Math.round(rect.height)) + "px;");
  bars.setAttribute("aria-busy", "true");
  bars.setAttribute("aria-label", "Loading");
  [92, 70, 84, 40].forEach(function (w) {
    bars.appendChild(css(D.createElement("div"),
      "height:14px;margin:0 0 12px;border-radius:6px;background:#e5e7eb;width:" + w + "%;"));
  });
  var oldDisplay = block.style.getPropertyValue("display");
  var prio = block.style.getPropertyPriority("display");
  hideFor(fault, block, p.render_after_ms, p.never,
    function () {
      block.parentNode.insertBefore(bars, block);
      block.style.setProperty("display", "none", "important");
    },
    function () {
      if (bars.parentNode) { bars.parentNode.removeChild(bars); }
      if (oldDisplay) { block.style.setProperty("display", oldDisplay, prio); } else {
        block.style.removeProperty("display");
      }
    });
};

RUNNERS.disabled_until = function (fault, el) {
  var p = fault.params;
  var native = "disabled" in el && el.tagName !== "A";
  var wasDisabled = native ? el.disabled : el.getAttribute("aria-disabled");
  var oldEvents = el.style.getPropertyValue("pointer-events");
  var blocker = null;
  if (native) {
    el.disabled = true;
  } else {
    el.setAttribute("aria-disabled", "true");
    el.style.setProperty("pointer-events", "none");
    blocker = interceptAll(el);
  }
  report(fault, "fired", {touched: describe(el), info: {disabled_ms: p.disabled_ms}});
  later(function () {
    if (native) {
      el.disabled = !!wasDisabled;
    } else {
      if (wasDisabled === null) { el.removeAttribute("aria-disabled"); } else { el.setAttribute("aria-disabled", wasDisabled); }
      if (oldEvents) { el.style.setProperty("pointer-events", oldEvents); } else { el.style.removeProperty("pointer-events"); }
      blocker();
    }
    report(fault, "restored", {touched: describe(el)});
  }, p.disabled_ms);
};

/* Links and custom controls have no `disabled`: cancel their clicks (keyboard included). */
function interceptAll(el) {
  function onClick(event) {
    if (within(el, eventTarget(event))) {
      event.preventDefault();
      event.stopImmediatePropagation();
    }
  }
  on("click", onClick, false);
  return function () { off("click", onClick); };
}

RUNNERS.transient_flash = function (fault, el) {
  var p = fault.params;
  var shown = 0;
  if (p.text) {
    var note = make(fault, "div",
      "margin:0 0 12px;padding:10px 14px;border-radius:8px;background:#fde2e1;color:#7a1d16;" +
      "font:600 15px/1.4 system-ui,sans-serif;", p.text);
    note.setAttribute("role", "alert");
    el.parentNode.insertBefore(note, el);
    report(fault, "fired", {occurrence: 1, touched: describe(el), info: {text: p.text, visible_ms: p.visible_ms}});
    later(function () {
      if (note.parentNode) { note.parentNode.removeChild(note); }
      report(fault, "restored", {touched: describe(el)});
    }, p.visible_ms);
    return;
  }
  var hideTimer = null;
  var lastText = null;
  function flash() {
    var text = clean(el.textContent);
    if (text === lastText) { return; }
    lastText = text;
    el.style.removeProperty("visibility");
    if (!text) { return; }
    shown += 1;
    cancel(hideTimer);
    report(fault, "fired", {occurrence: shown, touched: describe(el), info: {text: text.slice(0, 80),
                                                                              visible_ms: p.visible_ms}});
    hideTimer = later(function () { el.style.setProperty("visibility", "hidden", "important"); }, p.visible_ms);
  }
  if (Observer) {
    new Observer(flash).observe(el, {childList: true, subtree: true, characterData: true});
  }
  flash();
};
