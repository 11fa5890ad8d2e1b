/* modals: overlay, distractor_modal, required_step. A dialog in an open shadow root over a backdrop. */

var MODAL_TEXTS = {
  cookie: "We and our partners use cookies to personalise content and analyse traffic. " +
          "Choose whether you accept them before you continue.",
  newsletter: "Get our best deals first: sign up for the weekly newsletter.",
  chat: "Hi there! Do you need help finding something? Our assistants are online."
};

var BUTTON_STYLE = "padding:8px 16px;border:0;border-radius:4px;font:inherit;cursor:pointer;margin:0 8px 0 0;";

function modal(fault, title, text) {
  var host = make(fault, "div", "position:fixed;top:0;left:0;right:0;bottom:0;z-index:2147483647;margin:0;padding:0;");
  var root = host.attachShadow ? host.attachShadow({mode: "open"}) : host;
  var backdrop = css(D.createElement("div"),
    "position:fixed;top:0;left:0;right:0;bottom:0;background:rgba(0,0,0,0.45);" +
    "display:flex;align-items:center;justify-content:center;pointer-events:auto;");
  var dialog = css(D.createElement("div"),
    "position:relative;background:#fff;color:#111;max-width:420px;width:calc(100% - 48px);" +
    "padding:24px;border-radius:8px;box-shadow:0 8px 32px rgba(0,0,0,0.35);" +
    "font:15px/1.45 system-ui,sans-serif;text-align:left;");
  dialog.setAttribute("role", "dialog");
  dialog.setAttribute("aria-modal", "true");
  dialog.setAttribute("aria-label", title);
  dialog.tabIndex = -1;
  var heading = css(D.createElement("h2"), "margin:0 0 8px;font-size:18px;");
  heading.textContent = title;
  var para = css(D.createElement("p"), "margin:0 0 16px;");
  para.textContent = text;
  dialog.appendChild(heading);
  dialog.appendChild(para);
  backdrop.appendChild(dialog);
  root.appendChild(backdrop);
  return {host: host, dialog: dialog};
}

function modalButton(label, primary) {
  var b = css(D.createElement("button"), BUTTON_STYLE +
    (primary ? "background:#1a56db;color:#fff;font-weight:600;" : "background:#eee;color:#333;"));
  b.type = "button";
  b.textContent = label;
  return b;
}

function showModal(fault, m) {
  (D.body || D.documentElement).appendChild(m.host);
}

function closeModal(m) {
  if (m.host.parentNode) { m.host.parentNode.removeChild(m.host); }
}

function showOverlay(fault, el, occurrence) {
  var p = fault.params;
  occurrence = occurrence || 1;
  var m = modal(fault, p.title, MODAL_TEXTS[p.kind] || MODAL_TEXTS.cookie);
  var close = css(D.createElement("button"),
    "position:absolute;top:8px;right:8px;border:0;background:transparent;font:20px/1 sans-serif;" +
    "cursor:pointer;color:#444;");
  close.type = "button";
  close.setAttribute("aria-label", "Close");
  close.textContent = "\u00d7";
  var dismiss = modalButton(p.dismiss_label, true);
  m.dialog.insertBefore(close, m.dialog.firstChild);
  m.dialog.appendChild(dismiss);
  var gone = false;
  function remove(via) {
    if (gone) { return; }
    gone = true;
    closeModal(m);
    report(fault, "dismissed", {occurrence: occurrence, via: via});
    if (p.returns_once && occurrence === 1) {
      later(function () { showOverlay(fault, el, 2); }, Math.max(p.delay_ms, 1000));
    }
  }
  dismiss.addEventListener("click", function () { remove("dismiss"); });
  close.addEventListener("click", function () { remove("close"); });
  showModal(fault, m);
  try { dismiss.focus({preventScroll: true}); } catch (e) { /* focus is cosmetic */ }
  report(fault, "fired", {occurrence: occurrence, touched: describe(el), info: {kind: p.kind}});
}

RUNNERS.overlay = function (fault, el) { showOverlay(fault, el, 1); };

RUNNERS.distractor_modal = function (fault, el) {
  var p = fault.params;
  var m = modal(fault, p.title, p.text);
  var cta = modalButton(p.cta_label, true);
  var dismiss = modalButton(p.dismiss_label, false);
  m.dialog.appendChild(cta);
  m.dialog.appendChild(dismiss);
  dismiss.addEventListener("click", function () {
    closeModal(m);
    report(fault, "dismissed", {via: "dismiss"});
  });
  cta.addEventListener("click", function () {
    report(fault, "hit", {via: "cta", info: {path: p.cta_path}});
    W.location.assign(p.cta_path);
  });
  showModal(fault, m);
  report(fault, "fired", {touched: describe(el), info: {cta: p.cta_label}});
};

/* The target's click waits for a step the plan does not have: tick the box, press Continue. */
RUNNERS.required_step = function (fault, el) {
  var p = fault.params;
  var asked = 0;
  var completed = 0;
  var open = null;
  var stop = interceptClicks(el, function () {
    if (open) { return true; }
    asked += 1;
    var m = modal(fault, p.title, p.text);
    var label = css(D.createElement("label"), "display:flex;gap:8px;align-items:center;margin:0 0 16px;");
    var box = D.createElement("input");
    box.type = "checkbox";
    box.required = true;
    label.appendChild(box);
    label.appendChild(D.createTextNode(p.checkbox_label));
    var go = modalButton(p.continue_label, true);
    go.disabled = true;
    var cancelButton = modalButton("Cancel", false);
    box.addEventListener("change", function () { go.disabled = !box.checked; });
    m.dialog.appendChild(label);
    m.dialog.appendChild(go);
    m.dialog.appendChild(cancelButton);
    open = m;
    cancelButton.addEventListener("click", function () {
      closeModal(m);
      open = null;
      report(fault, "dismissed", {occurrence: asked, via: "cancel"});
    });
    go.addEventListener("click", function () {
      if (!box.checked) { return; }
      closeModal(m);
      open = null;
      completed += 1;
      if (completed >= p.times) { stop(); }
      report(fault, "dismissed", {occurrence: asked, via: "continue"});
      el.click();  /* untrusted: passes the interception, and the page's own handlers run */
    });
    showModal(fault, m);
    try { box.focus({preventScroll: true}); } catch (e) { /* focus is cosmetic */ }
    report(fault, "fired", {occurrence: asked, touched: describe(el)});
    return true;
  });
};
