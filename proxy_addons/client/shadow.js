/* shadow_overlay: a consent or newsletter dialog inside a closed (or open) shadow root, over a backdrop
   that takes every pointer event until one of its buttons is pressed (then never again in the episode). A closed root hides the dialog
   from every DOM query; the host's light DOM holds an unrendered, aria-hidden copy of it, which is all
   rrweb can record of a closed root and what its replayer draws. */

var SHADOW_TEXTS = {
  cookie: "We and our partners store cookies on your device to remember your settings and to measure " +
          "traffic. Please choose before you continue.",
  newsletter: "Be the first to hear about new arrivals and offers: sign up for our weekly email."
};

var SHADOW_BUTTON = "padding:9px 18px;border-radius:6px;font:600 14px/1.2 system-ui,sans-serif;cursor:pointer;" +
  "margin:0 0 0 8px;";

function shadowButton(label, primary) {
  var b = css(D.createElement("button"), SHADOW_BUTTON + (primary
    ? "background:#14532d;color:#fff;border:1px solid #14532d;"
    : "background:#fff;color:#14532d;border:1px solid #14532d;"));
  b.type = "button";
  b.textContent = label;
  return b;
}

/* The backdrop with its dialog; `copy`: the unrendered copy for the replay (no live controls). */
function shadowDialog(p, copy) {
  var backdrop = css(D.createElement("div"),
    "position:fixed;top:0;left:0;right:0;bottom:0;background:rgba(17,24,39,0.55);" +
    "display:flex;align-items:center;justify-content:center;pointer-events:auto;");
  var dialog = css(D.createElement("div"),
    "background:#fff;color:#111827;max-width:460px;width:calc(100% - 48px);padding:22px 24px 18px;" +
    "border-radius:10px;box-shadow:0 12px 40px rgba(0,0,0,0.35);font:14px/1.5 system-ui,sans-serif;" +
    "text-align:left;");
  var heading = css(D.createElement("h2"), "margin:0 0 8px;font:700 18px/1.3 system-ui,sans-serif;");
  heading.textContent = p.title;
  var para = css(D.createElement("p"), "margin:0 0 18px;color:#374151;");
  para.textContent = SHADOW_TEXTS[p.kind] || SHADOW_TEXTS.cookie;
  var row = css(D.createElement("div"), "display:flex;justify-content:flex-end;flex-wrap:wrap;gap:8px 0;");
  var buttons = [];
  if (p.kind === "cookie") { buttons.push(shadowButton("Reject all", false)); }
  buttons.push(shadowButton(p.dismiss_label, true));
  buttons.forEach(function (b) { row.appendChild(b); });
  dialog.appendChild(heading);
  dialog.appendChild(para);
  dialog.appendChild(row);
  backdrop.appendChild(dialog);
  if (copy) {
    backdrop.setAttribute("aria-hidden", "true");
    backdrop.inert = true;
    buttons.forEach(function (b) { b.tabIndex = -1; });
  } else {
    dialog.setAttribute("role", "dialog");
    dialog.setAttribute("aria-modal", "true");
    dialog.setAttribute("aria-label", p.title);
  }
  return {backdrop: backdrop, buttons: buttons};
}

/* The choice is remembered for the browser session's site, as consent platforms do (in the page's
   storage): once dismissed, the overlay is not shown again on any page of the episode. */
var SHADOW_CHOICE_KEY = "consent-choice:";

function shadowChoiceMade(fault) {
  try { return !!W.localStorage.getItem(SHADOW_CHOICE_KEY + fault.id); } catch (e) { return false; }
}

function shadowRememberChoice(fault, label) {
  try { W.localStorage.setItem(SHADOW_CHOICE_KEY + fault.id, label); } catch (e) { /* not kept: it asks again */ }
}

RUNNERS.shadow_overlay = function (fault, el) {
  var p = fault.params;
  if (shadowChoiceMade(fault)) { return; }
  var host = make(fault, "div", "position:fixed;top:0;left:0;right:0;bottom:0;z-index:2147483647;" +
                                "margin:0;padding:0;");
  if (!host.attachShadow) {
    report(fault, "target_missing", {info: {error: "no shadow DOM in this browser"}});
    return;
  }
  var root = host.attachShadow({mode: p.shadow === "open" ? "open" : "closed"});
  var live = shadowDialog(p, false);
  root.appendChild(live.backdrop);
  if (p.shadow !== "open") { host.appendChild(shadowDialog(p, true).backdrop); }
  var gone = false;
  live.buttons.forEach(function (button) {
    button.addEventListener("click", function () {
      if (gone) { return; }
      gone = true;
      if (host.parentNode) { host.parentNode.removeChild(host); }
      shadowRememberChoice(fault, button.textContent);
      report(fault, "dismissed", {via: button.textContent});
    });
  });
  (D.body || D.documentElement).appendChild(host);
  try { live.buttons[live.buttons.length - 1].focus({preventScroll: true}); } catch (e) { /* cosmetic */ }
  report(fault, "fired", {touched: describe(el), info: {kind: p.kind, shadow: p.shadow}});
};
