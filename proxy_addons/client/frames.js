/* frames: iframe_widget. The target button moves into a frame from pay.<this host> (frames.py serves its
   page); a message from that frame, and only from it, clicks the hidden original. */

var WIDGET_HOST_LABEL = "pay.";   /* frames.py FRAME_HOST_LABEL */
var WIDGET_PATH = "/widget/";     /* frames.py WIDGET_PATH */

RUNNERS.iframe_widget = function (fault, el) {
  var p = fault.params;
  var origin = W.location.protocol + "//" + WIDGET_HOST_LABEL + W.location.host;
  var frame = make(fault, "iframe",
    "display:block;box-sizing:border-box;max-width:100%;border:0;margin:4px 0;background:transparent;" +
    "width:" + p.width_px + "px;height:" + p.height_px + "px;");
  frame.setAttribute("title", p.provider + " secure widget");
  frame.setAttribute("src", origin + WIDGET_PATH + encodeURIComponent(fault.id));
  el.parentNode.insertBefore(frame, el);
  /* display:none takes the original out of the layout and the accessibility tree; it still works when clicked */
  el.style.setProperty("display", "none", "important");
  var hits = 0;
  on("message", function (event) {
    var data = event.data;
    if (event.origin !== origin || event.source !== frame.contentWindow) { return; }
    if (!data || data.kind !== "widget-activate" || data.widget !== fault.id) { return; }
    hits += 1;
    report(fault, "hit", {occurrence: hits, touched: describe(el), via: "frame"});
    el.click();
  }, false);
  report(fault, "fired", {touched: describe(el), info: {frame_origin: origin}});
};
