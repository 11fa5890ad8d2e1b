/* layout: layout_shift, scroll_jump, focus_steal. */

/* Where the block may go, first choice first: above the target's form or section (or the target itself); with
   an offer, first just above the row of that form the target sits in (the form's child that holds it), so
   that a target far down a long form does not need a block as tall as the form above it. */
function layoutPlaces(el, offer) {
  var anchor = el.closest("form, fieldset, table, ul, ol, section, article, p") || el;
  if (anchor === D.body || !anchor.parentNode) { anchor = el; }
  var row = el;
  while (row.parentNode && row.parentNode !== anchor && row !== anchor) { row = row.parentNode; }
  return offer && row.parentNode === anchor && row !== anchor ? [row, anchor] : [anchor];
}

function layoutInside(point, box) {
  return point.x >= box.left && point.x <= box.right && point.y >= box.top && point.y <= box.bottom;
}

/* The offer's button, drawn over the point where the target was before the block pushed it down (`atY`
   below the block's top), its pitch under it: a click aimed at where the target was seen adds the offer
   (the button then says so, a link beside it removes it again). */
function layoutOffer(fault, block, point, atY) {
  var p = fault.params;
  var taken = false;
  var button = D.createElement("button");
  button.type = "button";
  var undo = D.createElement("a");
  undo.href = "#";
  undo.textContent = "Remove";
  function show() {
    button.textContent = taken ? "\u2713 Added" : p.offer_label;
    undo.style.display = taken ? "inline" : "none";
  }
  button.addEventListener("click", function (event) {
    event.preventDefault();
    if (taken) { return; }
    taken = true;
    show();
    report(fault, "hit", {via: "offer", info: {offer: p.offer}});
  });
  undo.addEventListener("click", function (event) {
    event.preventDefault();
    taken = false;
    show();
    report(fault, "dismissed", {via: "offer", info: {offer: p.offer}});
  });
  var box = block.getBoundingClientRect();
  var width = Math.min(320, Math.max(160, box.width - 32));
  var left = Math.round(Math.max(0, Math.min(box.width - width, point.x - box.left - width / 2)));
  var top = Math.max(0, atY - 22);
  css(button, "position:absolute;left:" + left + "px;top:" + top + "px;width:" + width + "px;height:44px;" +
      "border:0;border-radius:6px;background:#b45309;color:#fff;font:600 15px/1.2 system-ui,sans-serif;" +
      "cursor:pointer;");
  css(undo, "position:absolute;left:" + (left + width + 12) + "px;top:" + (top + 12) + "px;color:#5a4300;" +
      "font-size:13px;");
  show();
  block.appendChild(button);
  block.appendChild(undo);
  /* the page's next write once the block is there carries whether its button was pressed */
  carryOnNextWrite(fault, function () { return taken ? p.offer : "none"; }, "write");
  return button;
}

RUNNERS.layout_shift = function (fault, el) {
  var p = fault.params;
  function shift() {
    // Scroll anchoring would scroll the page by the block's height when the viewport starts below the block
    // (the page scrolled past the top of the target's form), so the target would stay where it was drawn.
    D.documentElement.style.overflowAnchor = "none";
    if (D.body) { D.body.style.overflowAnchor = "none"; }
    var seen = el.getBoundingClientRect();
    var point = {x: seen.left + seen.width / 2, y: seen.top + seen.height / 2};
    var places = layoutPlaces(el, p.offer);
    var block = null;
    var atY = 0;
    for (var i = 0; i < places.length; i++) {
      // with an offer: its button where the target was drawn (that far below the place's top), the pitch
      // below it; a place whose block would not cover that point (a row of a flex or grid form) is passed over
      atY = Math.max(0, Math.round(point.y - places[i].getBoundingClientRect().top));
      var textTop = Math.max(0, atY - 22) + 54;
      var height = p.offer ? Math.max(p.height_px, textTop + 64) : p.height_px;
      block = make(fault, "div",
        "box-sizing:border-box;height:" + height + "px;margin:0 0 12px;padding:" + (p.offer ? textTop : 16) +
        "px 16px 16px;border-radius:8px;background:#fff4d6;color:#5a4300;font:600 15px/1.4 system-ui," +
        "sans-serif;overflow:hidden;" + (p.offer ? "position:relative;flex:0 0 100%;" : ""), p.text);
      places[i].parentNode.insertBefore(block, places[i]);
      if (!p.offer || layoutInside(point, block.getBoundingClientRect()) || i === places.length - 1) { break; }
      block.parentNode.removeChild(block);
    }
    var info = {height_px: block.offsetHeight, moved_px: Math.round(el.getBoundingClientRect().top - seen.top)};
    if (p.offer) {
      var button = layoutOffer(fault, block, point, atY);
      info.offer_covers = layoutInside(point, button.getBoundingClientRect());
    }
    report(fault, "fired", {touched: describe(el), info: info});
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
