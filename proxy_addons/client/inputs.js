/* inputs: input_corruption, adjacent_selection. */

function corrupt(value, p) {
  if (p.mode === "replace") { return p.replacement; }
  if (p.mode === "drop_last") { return value.slice(0, -1); }
  if (p.mode === "double_last") { return value + value.slice(-1); }
  var words = value.split(/(\s+)/);
  for (var i = 0; i < words.length; i++) {
    var swapped = words[i].length >= 3 && /\S/.test(words[i]) ? swapNearMiddle(words[i]) : null;
    if (swapped !== null) {
      words[i] = swapped;
      return words.join("");
    }
  }
  var whole = swapNearMiddle(value);
  return whole !== null ? whole : value + value.slice(-1);
}

/* Swap the two differing neighbours nearest the middle ("2500.00" -> "250.000"), or null if all are equal. */
function swapNearMiddle(w) {
  var mid = Math.floor(w.length / 2);
  for (var d = 0; d < w.length; d++) {
    var ks = d ? [mid + d, mid - d] : [mid];
    for (var j = 0; j < ks.length; j++) {
      var k = ks[j];
      if (k >= 1 && k < w.length && w[k - 1] !== w[k]) {
        return w.slice(0, k - 1) + w[k] + w[k - 1] + w.slice(k + 1);
      }
    }
  }
  return null;
}

RUNNERS.input_corruption = function (fault, el) {
  var p = fault.params;
  var done = 0;
  function onInput(event) {
    if (!event.isTrusted || !within(el, eventTarget(event)) || !("value" in el)) { return; }
    if (String(el.value).length < p.min_chars) { return; }
    var typed = String(el.value);
    var altered = corrupt(typed, p);
    if (altered === typed) { return; }
    el.value = altered;
    done += 1;
    if (done >= p.times) { off("input", onInput); }
    report(fault, "fired", {occurrence: done, touched: describe(el),
                            info: {mode: p.mode, typed_length: typed.length, altered: altered.slice(0, 80)}});
  }
  on("input", onInput, true);
};

function fire(el, type) {
  el.dispatchEvent(new Event(type, {bubbles: true}));
}

RUNNERS.adjacent_selection = function (fault, el) {
  var p = fault.params;
  var done = 0;
  function neighbour(index, count) {
    var next = index + p.offset;
    if (next < 0 || next >= count) { next = index - p.offset; }
    return Math.max(0, Math.min(count - 1, next));
  }
  function group() {
    if (el.tagName === "SELECT") { return null; }
    var radio = el.tagName === "INPUT" ? el : el.querySelector("input[type=radio]");
    if (!radio || !radio.name) { return null; }
    var scope = radio.form || D;
    return Array.prototype.filter.call(scope.querySelectorAll("input[type=radio]"),
                                       function (r) { return r.name === radio.name; });
  }
  function onChange(event) {
    if (!event.isTrusted || done >= p.times) { return; }
    var target = eventTarget(event);
    var chose;
    var got;
    if (el.tagName === "SELECT") {
      if (target !== el) { return; }
      chose = el.options[el.selectedIndex];
      el.selectedIndex = neighbour(el.selectedIndex, el.options.length);
      got = el.options[el.selectedIndex];
      chose = chose ? chose.value : null;
      got = got ? got.value : null;
    } else {
      var radios = group();
      if (!radios || radios.indexOf(target) < 0 || !target.checked) { return; }
      var other = radios[neighbour(radios.indexOf(target), radios.length)];
      chose = target.value;
      got = other.value;
      if (other !== target) { other.checked = true; }
      later(function () { fire(other, "input"); fire(other, "change"); }, 0);
    }
    if (chose === got) { return; }
    done += 1;
    if (el.tagName === "SELECT") { later(function () { fire(el, "input"); fire(el, "change"); }, 0); }
    report(fault, "fired", {occurrence: done, touched: describe(target), info: {chose: chose, got: got}});
  }
  on("change", onChange, true);
};
