/* layout: layout_shift, scroll_jump, focus_steal. */

RUNNERS.layout_shift = function (fault, el) {
  var p = fault.params;
  function shift() {
    var anchor = el.closest("form, fieldset, table, ul, ol, section, article, p") || el;
    if (anchor === D.body || !anchor.parentNode) { anchor = el; }
    // Scroll anchoring would scroll the page by the block's height when the viewport starts below the block
    // (the page scrolled past the top of the target's form), so the target would stay where it was drawn.
    D.documentElement.style.overflowAnchor = "none";
    if (D.body) { D.body.style.overflowAnchor = "none"; }
    var before = el.getBoundingClientRect().top;
    var block = make(fault, "div",
      "box-sizing:border-box;height:" + p.height_px + "px;margin:0 0 12px;padding:16px;border-radius:8px;" +
      "background:#fff4d6;color:#5a4300;font:600 15px/1.4 system-ui,sans-serif;overflow:hidden;", p.text);
    anchor.parentNode.insertBefore(block, anchor);
    var moved = Math.round(el.getBoundingClientRect().top - before);
    report(fault, "fired", {touched: describe(el), info: {height_px: p.height_px, moved_px: moved}});
  }
  if (!p.on_hover) { shift(); return; }
  function onMove(event) {
    if (!event.isTrusted || !within(el, eventTarget(event))) { return; }
    off("pointermove", onMove);
    off("mousemove", onMove);
    shift();
  }
  on("pointermove", onMove, true);
  on("mousemove", onMove, true);
};

RUNNERS.scroll_jump = function (fault, el) {
  var p = fault.params;
  var done = 0;
  function jump() {
    done += 1;
    var from = Math.round(W.scrollY);
    quietScrollUntil = nowEpochMs() + 400;
    W.scrollBy({top: p.dy_px, left: 0, behavior: "instant"});
    report(fault, "fired", {occurrence: done, touched: describe(el),
                            info: {from_y: from, to_y: Math.round(W.scrollY)}});
    if (done < p.times) { later(jump, p.every_ms); }
  }
  jump();
};

RUNNERS.focus_steal = function (fault, el) {
  var p = fault.params;
  var stolen = 0;
  function steal() {
    if (stolen >= p.times || !within(el, D.activeElement)) { return; }
    stolen += 1;
    if (stolen >= p.times) { off("focusin", onFocus); }
    var to = p.to_selector ? bySelector(p.to_selector) : null;
    if (to && to.focus) { to.focus(); } else { el.blur(); }
    report(fault, "fired", {occurrence: stolen, touched: describe(el), info: {to: to ? cssPath(to) : null}});
  }
  function onFocus(event) {
    if (!within(el, eventTarget(event))) { return; }
    // 0 steals before anything can be typed, however fast the typist: no race with the agent's speed.
    if (p.steal_after_ms === 0) { steal(); } else { later(steal, p.steal_after_ms); }
  }
  on("focusin", onFocus, true);
  if (D.activeElement && within(el, D.activeElement)) { onFocus({target: D.activeElement}); }
};
