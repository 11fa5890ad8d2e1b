/* clicks: click_swallow, same_label_decoy, false_toast. */

RUNNERS.click_swallow = function (fault, el) {
  var swallowed = 0;
  var stop = interceptClicks(el, function () {
    swallowed += 1;
    if (swallowed >= fault.params.swallow_clicks) { stop(); }
    report(fault, "fired", {occurrence: swallowed, touched: describe(el)});
    return true;
  });
};

RUNNERS.same_label_decoy = function (fault, el) {
  var decoy = own(el.cloneNode(true), fault);
  // Without its ids and data-* hooks: a page script that binds the first [data-...] control it finds after the
  // decoy is in would bind the decoy and leave the real control dead.
  [decoy].concat(Array.prototype.slice.call(decoy.querySelectorAll("*"))).forEach(function (c) {
    Array.prototype.slice.call(c.attributes).forEach(function (a) {
      if (a.name === "id" || a.name.indexOf("data-") === 0) { c.removeAttribute(a.name); }
    });
  });
  decoy.removeAttribute("name");
  decoy.removeAttribute("form");
  decoy.removeAttribute("disabled");
  if (decoy.tagName === "BUTTON" || decoy.tagName === "INPUT") { decoy.setAttribute("type", "button"); }
  if (decoy.tagName === "A") { decoy.setAttribute("href", "#"); }
  var gap = W.getComputedStyle(el).display.indexOf("inline") === 0 ? "margin-right:0.5em;" : "margin-bottom:0.5em;";
  decoy.style.cssText += gap;
  var hits = 0;
  interceptClicks(decoy, function () {
    hits += 1;
    report(fault, "hit", {occurrence: hits, touched: describe(decoy)});
    return true;
  });
  el.parentNode.insertBefore(decoy, fault.params.position === "after" ? el.nextSibling : el);
  report(fault, "fired", {touched: describe(el), info: {position: fault.params.position}});
};

RUNNERS.false_toast = function (fault, el) {
  var p = fault.params;
  var faked = 0;
  var stop = interceptClicks(el, function () {
    faked += 1;
    if (faked >= p.fake_clicks) { stop(); }
    var toast = make(fault, "div",
      "position:fixed;left:50%;bottom:32px;transform:translateX(-50%);z-index:2147483646;" +
      "background:#0f7a4a;color:#fff;padding:12px 20px;border-radius:8px;" +
      "font:600 15px/1.4 system-ui,sans-serif;box-shadow:0 6px 20px rgba(0,0,0,0.25);", p.text);
    toast.setAttribute("role", "status");
    (D.body || D.documentElement).appendChild(toast);
    if (p.toast_ms) {
      later(function () { if (toast.parentNode) { toast.parentNode.removeChild(toast); } }, p.toast_ms);
    }
    report(fault, "fired", {occurrence: faked, touched: describe(el), info: {text: p.text}});
    return true;
  });
};
