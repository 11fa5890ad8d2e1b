/* human_check before an action: the target's click is held while a "Verify you are human" dialog asks for a
   challenge (tick a box and wait, type the word shown, slide to the end); solved, the held click goes
   through. Looks like the security check page the network human_check answers. Words: drawn from a hash of
   the fault's id, the page as the episode's seed generated it, the challenge and the try (same seed, same
   words). */

var CHECK_WORDS = ["harbor", "lantern", "meadow", "copper", "falcon", "orchard", "pebble", "velvet", "summit",
                   "canyon", "maple", "thistle", "beacon", "walnut", "glacier", "saddle", "willow", "ember",
                   "quartz", "harvest"];
var NOT_THE_WORD = "That was not the word shown. Please try this one.";
var SLIDE_HINT = "Move the slider all the way to the right.";

function checkWord(fault, el, challenge, attempt) {
  var heading = D.querySelector("h1");
  var material = [fault.id, W.location.pathname, D.title, heading ? clean(heading.textContent) : "",
                  accessibleName(el), challenge].join("|");
  var h = 0x811c9dc5;  /* FNV-1a */
  for (var i = 0; i < material.length; i++) {
    h ^= material.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  /* a wrong answer gets the next word along: never the same one twice in a row */
  return CHECK_WORDS[(h + attempt) % CHECK_WORDS.length];
}

function checkButton(label) {
  var b = css(D.createElement("button"), "font:600 15px/1.2 system-ui,sans-serif;padding:9px 18px;" +
    "border-radius:6px;border:1px solid #1a7f37;background:#1f883d;color:#fff;cursor:pointer;align-self:flex-start;");
  b.type = "button";
  b.textContent = label;
  return b;
}

function setEnabled(button, enabled) {
  button.disabled = !enabled;
  button.style.opacity = enabled ? "1" : "0.45";
  button.style.cursor = enabled ? "pointer" : "not-allowed";
}

/* The dialog; `wordAt(attempt)` the word to show, `solved(tries)` when Continue passes. */
function checkDialog(fault, wordAt, solved) {
  var p = fault.params;
  var host = make(fault, "div", "position:fixed;top:0;left:0;right:0;bottom:0;z-index:2147483647;margin:0;padding:0;");
  var root = host.attachShadow ? host.attachShadow({mode: "open"}) : host;
  var backdrop = css(D.createElement("div"), "position:fixed;top:0;left:0;right:0;bottom:0;" +
    "background:rgba(31,35,40,0.55);display:flex;align-items:center;justify-content:center;pointer-events:auto;");
  var dialog = css(D.createElement("div"), "background:#fff;color:#1f2328;max-width:440px;width:calc(100% - 48px);" +
    "padding:22px 24px;border-radius:8px;border:1px solid #d0d7de;box-shadow:0 12px 40px rgba(0,0,0,0.3);" +
    "font:15px/1.5 system-ui,sans-serif;text-align:left;display:flex;flex-direction:column;gap:12px;");
  dialog.setAttribute("role", "dialog");
  dialog.setAttribute("aria-modal", "true");
  dialog.setAttribute("aria-label", "Verify you are human");
  dialog.tabIndex = -1;
  var heading = css(D.createElement("h2"), "margin:0;font:600 19px/1.3 system-ui,sans-serif;");
  heading.textContent = "Verify you are human";
  var lead = css(D.createElement("p"), "margin:0;color:#59636e;");
  lead.textContent = W.location.hostname + " needs to check that you are a person before you continue. " +
    "Complete the action below.";
  var status = css(D.createElement("p"), "margin:0;min-height:1.5em;color:#59636e;font-size:14px;");
  status.setAttribute("role", "status");
  var go = checkButton("Continue");
  dialog.appendChild(heading);
  dialog.appendChild(lead);
  var answer = null;
  var shown = null;
  var strong = null;
  if (p.mode === "checkbox") {
    var tick = css(D.createElement("label"), "display:flex;gap:12px;align-items:center;cursor:pointer;font-size:16px;");
    var box = css(D.createElement("input"), "width:24px;height:24px;margin:0;accent-color:#1a7f37;");
    box.type = "checkbox";
    tick.appendChild(box);
    tick.appendChild(D.createTextNode("I am not a robot"));
    dialog.appendChild(tick);
    setEnabled(go, false);
    var timer = null;
    box.addEventListener("change", function () {
      cancel(timer);
      setEnabled(go, false);
      status.textContent = box.checked ? "Verifying\u2026" : "";
      if (box.checked) {
        timer = later(function () { setEnabled(go, true); status.textContent = "Verified. Press Continue."; },
                      p.wait_ms);
      }
    });
  } else if (p.mode === "word") {
    var prompt = css(D.createElement("p"), "margin:0;");
    strong = css(D.createElement("strong"), "font:600 19px/1.2 ui-monospace,Menlo,Consolas,monospace;" +
      "letter-spacing:.06em;");
    prompt.appendChild(D.createTextNode("Type the word shown: "));
    prompt.appendChild(strong);
    var label = css(D.createElement("label"), "display:flex;flex-direction:column;gap:4px;");
    label.appendChild(D.createTextNode("Word"));
    answer = css(D.createElement("input"), "font:inherit;padding:7px 10px;border:1px solid #8c959f;border-radius:6px;");
    answer.type = "text";
    answer.autocomplete = "off";
    answer.spellcheck = false;
    label.appendChild(answer);
    dialog.appendChild(prompt);
    dialog.appendChild(label);
    shown = strong.textContent = wordAt(0);
  } else {
    var slideLabel = css(D.createElement("label"), "display:flex;flex-direction:column;gap:4px;");
    slideLabel.appendChild(D.createTextNode("Slide to verify"));
    var slider = css(D.createElement("input"), "width:100%;accent-color:#0969da;");
    slider.type = "range";
    slider.min = "0";
    slider.max = "100";
    slider.step = "1";
    slider.value = "0";
    slideLabel.appendChild(slider);
    dialog.appendChild(slideLabel);
    setEnabled(go, false);
    status.textContent = SLIDE_HINT;
    var seen = function () {
      var done = Number(slider.value) >= Number(slider.max);
      setEnabled(go, done);
      status.textContent = done ? "Done. Press Continue." : SLIDE_HINT;
    };
    slider.addEventListener("input", seen);
    slider.addEventListener("change", seen);
  }
  dialog.appendChild(status);
  dialog.appendChild(go);
  backdrop.appendChild(dialog);
  root.appendChild(backdrop);
  var tries = 0;
  go.addEventListener("click", function () {
    if (go.disabled) { return; }
    tries += 1;
    if (answer && clean(answer.value).toLowerCase() !== shown.toLowerCase()) {
      status.setAttribute("role", "alert");
      status.style.color = "#d1242f";
      status.textContent = NOT_THE_WORD;
      answer.value = "";
      shown = strong.textContent = wordAt(tries);
      return;
    }
    if (host.parentNode) { host.parentNode.removeChild(host); }
    solved(tries);
  });
  (D.body || D.documentElement).appendChild(host);
  try { (answer || go).focus({preventScroll: true}); } catch (e) { /* focus is cosmetic */ }
  return shown;
}

RUNNERS.human_check = function (fault, el) {
  var p = fault.params;
  var asked = 0;
  var passed = 0;
  var open = false;
  var stop = interceptClicks(el, function () {
    if (open) { return true; }  /* the click stays held while the check is open */
    open = true;
    asked += 1;
    var challenge = asked;
    var word = checkDialog(fault, function (attempt) { return checkWord(fault, el, challenge, attempt); },
      function (tries) {
        open = false;
        passed += 1;
        if (passed >= p.times) { stop(); }
        report(fault, "dismissed", {occurrence: challenge, via: "solved", info: {tries: tries}});
        el.click();  /* untrusted: passes the interception, and the page's own handlers run */
      });
    var info = {mode: p.mode};
    if (word) { info.word = word; }
    report(fault, "fired", {occurrence: challenge, touched: describe(el), info: info});
    return true;
  });
};
