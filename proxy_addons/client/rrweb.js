/* rrweb: the page as the agent sees it (a DOM snapshot, then its mutations, mouse, scrolls and
   inputs), recorded by the rrweb record bundle the proxy serves at config.rrweb_script (loaded
   once the page has loaded, cached by the browser; it leaves its exports on its own <script>
   element, which is removed again at once, so the page gains no global) and posted in batches to config.rrweb as
   {"rec": n, "events": [...]} (`rec`: the page load's number within the episode, given by the
   proxy). Top frames only (rrweb records same-origin iframes from there). Passwords are masked.
   Recording begins just after the page's load event (or 2 s after DOMContentLoaded).
   The proxy answers 204, or 413 once the episode's recording is full: recording then stops.
   Nothing here touches the page's state: rrweb only reads the DOM and listens. */

var RRWEB_FLUSH_MS = 1000;
var RRWEB_LATEST_MS = 2000;  /* after DOMContentLoaded, start even if `load` never comes */
var RRWEB_CHUNK_BYTES = 256 * 1024;
var RRWEB_KEEPALIVE_BYTES = 60000;  /* browsers refuse keepalive bodies over 64 KiB */

var RRWEB_NONCE = (D.currentScript && D.currentScript.nonce) || "";  /* the page's CSP may need it */

/* Fetch rrweb's recorder and call back with its exports (null when it cannot load). */
function loadRrweb(done) {
  var tag = D.createElement("script");
  var settled = false;
  function finish() {
    if (settled) { return; }
    settled = true;
    var found = tag.webchaosRecord || null;
    if (tag.parentNode) { tag.parentNode.removeChild(tag); }
    done(found);
  }
  tag.src = config.rrweb_script;
  if (RRWEB_NONCE) { tag.nonce = RRWEB_NONCE; }
  tag.onload = finish;
  tag.onerror = finish;
  (D.head || D.documentElement).appendChild(tag);
}

function startRrweb() {
  if (!config.rrweb || !config.rrweb_script || W.top !== W) { return; }
  var RRWEB_RECORD = null;
  var queue = [];
  var size = 0;
  var timer = null;
  var stopped = false;
  var stop = null;

  function halt() {
    stopped = true;
    queue = [];
    size = 0;
    if (typeof stop === "function") { try { stop(); } catch (e) { /* already stopped */ } }
  }

  function record() { return RRWEB_RECORD.record(rrwebOptions(emit)); }

  function flush(leaving) {
    cancel(timer);
    timer = null;
    if (!queue.length || stopped) { return; }
    var body = "{\"rec\":" + config.rrweb_rec + ",\"events\":[" + queue.join(",") + "]}";
    queue = [];
    size = 0;
    if (!sendFetch) { return; }
    try {
      sendFetch(config.rrweb, {
        method: "POST", credentials: "same-origin", keepalive: leaving && body.length < RRWEB_KEEPALIVE_BYTES,
        headers: {"content-type": "application/json"}, body: body
      }).then(function (response) {
        if (response.status === 413 || response.status === 404) { halt(); }
      }, function () { /* best effort */ });
    } catch (e) { /* nothing else to try */ }
  }

  function emit(event) {
    if (stopped) { return; }
    var text;
    try { text = stringify(event); } catch (e) { return; }
    queue.push(text);
    size += text.length + 1;
    if (size >= RRWEB_CHUNK_BYTES) {
      flush(false);
    } else if (!timer) {
      timer = later(function () { flush(false); }, RRWEB_FLUSH_MS);
    }
  }

  function begin() {
    if (stop || stopped) { return; }
    stop = true;  /* claimed: begin runs once */
    loadRrweb(function (exports) {
      RRWEB_RECORD = exports;
      if (!RRWEB_RECORD || stopped) { halt(); return; }
      try {
        stop = record() || null;
      } catch (e) {
        halt();
      }
    });
  }
  /* The snapshot is taken just after the page's load event, never before it: the page loads as
     fast as without recording (an agent waiting for `load` waits no longer). Whatever a fault did
     before that is in the snapshot; the moments before it replay as the previous page. */
  if (D.readyState === "complete") {
    later(begin, 0);
  } else {
    on("load", function () { later(begin, 0); }, true);
    on("DOMContentLoaded", function () { later(begin, RRWEB_LATEST_MS); }, true);
  }
  on("pagehide", function () { flush(true); }, true);
  on("visibilitychange", function () { if (D.visibilityState === "hidden") { flush(true); } }, true);
}

function rrwebOptions(emit) {
  return {
    emit: emit,
    recordAfter: "DOMContentLoaded",
    recordCanvas: false,
    collectFonts: false,
    inlineImages: false,
    inlineStylesheet: true,
    maskInputOptions: {password: true},
    sampling: {mousemove: 50, mouseInteraction: true, scroll: 150, media: 800, input: "last"},
    slimDOMOptions: {script: true, comment: true, headFavicon: true, headWhitespace: true,
                     headMetaDescKeywords: true, headMetaSocial: true, headMetaRobots: true,
                     headMetaHttpEquiv: true, headMetaAuthorship: true, headMetaVerification: true}
  };
}
