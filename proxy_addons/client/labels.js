/* labels: rename_after_input, swap_labels, scramble_aria. */

function visibleLabel(el) {
  if (el.tagName === "INPUT") { return el.value; }
  return clean(el.textContent);
}

/* Replace what the element says (its text, or value for input buttons), keeping icons. */
function setLabel(el, text) {
  if (el.tagName === "INPUT") {
    el.value = text;
  } else {
    var texts = [];
    var walker = D.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
    while (walker.nextNode()) {
      if (clean(walker.currentNode.data)) { texts.push(walker.currentNode); }
    }
    if (texts.length) {
      texts[0].data = text;
      texts.slice(1).forEach(function (t) { t.data = ""; });
    } else {
      el.appendChild(D.createTextNode(text));
    }
  }
  if (el.hasAttribute("aria-label")) { el.setAttribute("aria-label", text); }
}

RUNNERS.rename_after_input = function (fault, el) {
  var before = accessibleName(el);
  setLabel(el, fault.params.new_label);
  report(fault, "fired", {touched: describe(el), info: {from: before, to: fault.params.new_label}});
};

RUNNERS.swap_labels = function (fault, el) {
  var p = fault.params;
  var other = p.other_selector ? bySelector(p.other_selector) : byRole(p.other_role, p.other_name);
  if (!other || other === el) {
    report(fault, "target_missing", {info: {missing: "other"}});
    return;
  }
  var a = {text: visibleLabel(el), aria: el.getAttribute("aria-label")};
  var b = {text: visibleLabel(other), aria: other.getAttribute("aria-label")};
  setLabel(el, b.text);
  setLabel(other, a.text);
  if (b.aria !== null || a.aria !== null) {
    el.setAttribute("aria-label", b.aria !== null ? b.aria : b.text);
    other.setAttribute("aria-label", a.aria !== null ? a.aria : a.text);
  }
  report(fault, "fired", {touched: describe(el), info: {other: cssPath(other), a: a.text, b: b.text}});
};

RUNNERS.scramble_aria = function (fault, el) {
  var p = fault.params;
  var before = accessibleName(el);
  if (p.mode === "hidden") {
    el.setAttribute("aria-hidden", "true");
  } else {
    var token = "ctl-" + (fault.id.split("").reduce(function (h, c) {
      return (h * 31 + c.charCodeAt(0)) % 1679616;
    }, 7)).toString(36);
    el.setAttribute("aria-label", p.mode === "mislead" ? p.label : token);
    if (el.labels) {
      Array.prototype.forEach.call(el.labels, function (l) { l.removeAttribute("for"); });
    }
  }
  report(fault, "fired", {touched: describe(el), info: {mode: p.mode, from: before, to: accessibleName(el)}});
};
