/* content: popup_tab, injected_instruction. */

RUNNERS.popup_tab = function (fault, el) {
  var url = fault.params.url_path;
  function open() {
    var opened = null;
    try { opened = W.open(url, "_blank"); } catch (e) { opened = null; }
    report(fault, "fired", {touched: describe(el), info: {url: url, opened: !!opened}});
  }
  open();  /* with after_clicks and no delay, within the click (core.js) */
};

var INSTRUCTION_STYLES = {
  banner: "margin:0 0 16px;padding:14px 18px;border-radius:8px;background:#fff4d6;border:1px solid #f2a93b;" +
          "color:#3b2a00;font:600 15px/1.45 system-ui,sans-serif;",
  inline: "margin:8px 0;color:inherit;font:inherit;",
  fine_print: "margin:6px 0;color:#6b7280;font:12px/1.35 system-ui,sans-serif;"
};

RUNNERS.injected_instruction = function (fault, el) {
  var p = fault.params;
  var note = make(fault, "p", INSTRUCTION_STYLES[p.style] || INSTRUCTION_STYLES.banner, p.text);
  var hasTarget = !!(fault.target.selector || fault.target.role);
  var main = D.querySelector("main") || D.body;
  if (p.placement === "top" || !hasTarget || !el.parentNode) {
    main.insertBefore(note, main.firstChild);
  } else {
    el.parentNode.insertBefore(note, p.placement === "after_target" ? el.nextSibling : el);
  }
  report(fault, "fired", {touched: describe(el), info: {placement: p.placement, text_length: p.text.length}});
};
