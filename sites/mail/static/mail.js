/* Lark Mail: small progressive scripts. Every write goes through the JSON API (Kit.api, /static/kit.js). */
(function () {
  "use strict";

  var EMAIL = /^[^@\s<>,;:"()\[\]]+@[^@\s<>,;:"()\[\]]+\.[A-Za-z0-9-]{2,}$/;

  var api = window.Kit.api;
  var reason = window.Kit.reason;
  var go = window.Kit.go;
  var show = window.Kit.show;
  var clear = window.Kit.clear;

  function here() {
    return window.location.pathname + window.location.search;
  }

  var pageAlert = document.querySelector("main [data-alert]");

  /* ---- actions on messages (list toolbar, conversation toolbar) ------------------------------ */

  var ACTIONS = {
    "archive": { url: "/api/messages/archive", notice: "archived", leaves: true },
    "trash": { url: "/api/messages/trash", notice: "trashed", leaves: true },
    "spam": { url: "/api/messages/spam", notice: "spammed", leaves: true },
    "not-spam": { url: "/api/messages/not-spam", notice: "unspammed", leaves: true },
    "delete-forever": { url: "/api/messages/delete-forever", notice: "deleted", leaves: true },
    "read": { url: "/api/messages/read", notice: "marked", extra: { read: true } },
    "unread": { url: "/api/messages/read", notice: "marked", extra: { read: false }, leaves: true },
    "move": { url: "/api/messages/move", notice: "moved", leaves: true },
    "label": { url: "/api/messages/labels", notice: "labelled" }
  };

  function runAction(toolbar, name, ids, button, done) {
    var spec = ACTIONS[name];
    if (!spec) return;
    if (!ids.length) {
      show(pageAlert, "Select at least one message first");
      return;
    }
    var body = { ids: ids };
    Object.keys(spec.extra || {}).forEach(function (key) { body[key] = spec.extra[key]; });
    if (name === "move") {
      body.folder = toolbar.querySelector("[data-move-target]").value;
    }
    if (name === "label") {
      body.add = [toolbar.querySelector("[data-label-target]").value];
    }
    clear(pageAlert, true);
    button.disabled = true;
    api("POST", spec.url, body)
      .then(function () { done(spec); })
      .catch(function (error) {
        button.disabled = false;
        show(pageAlert, reason(error, "Could not update the messages — try again"));
      });
  }

  document.querySelectorAll("[data-bulk]").forEach(function (toolbar) {
    var boxes = Array.prototype.slice.call(document.querySelectorAll(".message-list input.select"));
    var all = toolbar.querySelector("[data-select-all]");
    if (all) {
      all.addEventListener("change", function () {
        boxes.forEach(function (box) { box.checked = all.checked; });
      });
    }
    toolbar.querySelectorAll("button[data-action]").forEach(function (button) {
      button.addEventListener("click", function () {
        var ids = boxes.filter(function (box) { return box.checked; }).map(function (box) { return box.value; });
        var action = button.dataset.action;
        if (ids.length && (action === "trash" || action === "delete-forever")) {
          // Deleting a selection is confirmed, as most webmail does for bulk moves to the Trash.
          var what = ids.length === 1 ? "1 conversation" : ids.length + " conversations";
          var ask = action === "trash" ? "Move " + what + " to Trash?" : "Delete " + what + " forever?";
          if (!window.confirm(ask)) return;
        }
        runAction(toolbar, action, ids, button, function (spec) { go(here(), spec.notice || null); });
      });
    });
  });

  document.querySelectorAll("[data-single]").forEach(function (toolbar) {
    var id = toolbar.dataset.single;
    toolbar.querySelectorAll("button[data-action]").forEach(function (button) {
      button.addEventListener("click", function () {
        runAction(toolbar, button.dataset.action, [id], button, function (spec) {
          go(spec.leaves ? toolbar.dataset.back : here(), spec.notice || null);
        });
      });
    });
  });

  /* Snooze: a menu of times; the message leaves the inbox until then. */
  document.querySelectorAll("[data-snooze-open]").forEach(function (opener) {
    var toolbar = opener.closest("[data-single]");
    var menu = document.getElementById(opener.getAttribute("aria-controls"));
    opener.addEventListener("click", function () {
      menu.hidden = !menu.hidden;
      opener.setAttribute("aria-expanded", menu.hidden ? "false" : "true");
    });
    menu.querySelectorAll("button[data-snooze]").forEach(function (choice) {
      choice.addEventListener("click", function () {
        choice.disabled = true;
        clear(pageAlert, true);
        api("POST", "/api/messages/snooze", { ids: [toolbar.dataset.single], until: choice.dataset.snooze })
          .then(function () { go(toolbar.dataset.back, "snoozed"); })
          .catch(function (error) {
            choice.disabled = false;
            show(pageAlert, reason(error, "Could not snooze the message — try again"));
          });
      });
    });
  });

  document.querySelectorAll("button[data-star]").forEach(function (button) {
    button.addEventListener("click", function () {
      var starred = button.dataset.starred !== "true";
      button.disabled = true;
      api("POST", "/api/messages/star", { ids: [button.dataset.star], starred: starred })
        .then(function () {
          button.dataset.starred = starred ? "true" : "false";
          var row = button.closest(".row");
          if (row) row.classList.toggle("starred", starred);
          var label = button.getAttribute("aria-label");
          if (label) {
            button.setAttribute("aria-label", label.replace(/^(Unstar|Star)/, starred ? "Unstar" : "Star"));
          } else {
            button.textContent = starred ? "Unstar" : "Star";
          }
        })
        .catch(function (error) { show(pageAlert, reason(error, "Could not change the star — try again")); })
        .then(function () { button.disabled = false; });
    });
  });

  document.querySelectorAll("button[data-remove-label]").forEach(function (button) {
    button.addEventListener("click", function () {
      var toolbar = document.querySelector("[data-single]");
      if (!toolbar) return;
      button.disabled = true;
      api("POST", "/api/messages/labels", { ids: [toolbar.dataset.single], remove: [button.dataset.removeLabel] })
        .then(function () { go(here(), "labelled"); })
        .catch(function (error) {
          button.disabled = false;
          show(pageAlert, reason(error, "Could not remove the label — try again"));
        });
    });
  });

  /* ---- compose ---------------------------------------------------------------------------- */

  function parseRecipients(text) {
    var out = [];
    var bad = null;
    text.split(/[,;\n]/).forEach(function (raw) {
      var token = raw.trim();
      if (!token) return;
      var angle = token.match(/<([^<>]+)>\s*$/);
      var email = angle ? angle[1].trim() : token;
      if (!EMAIL.test(email)) {
        if (bad === null) bad = token;
        return;
      }
      if (out.indexOf(email) < 0) out.push(email);
    });
    return { emails: out, bad: bad };
  }

  function contactsData() {
    var node = document.getElementById("contacts-data");
    if (!node) return [];
    try { return JSON.parse(node.textContent || "[]"); } catch (err) { return []; }
  }

  function autocomplete(input, contacts) {
    var list = document.getElementById(input.getAttribute("aria-controls"));
    var active = -1;
    var options = [];

    function close() {
      list.hidden = true;
      list.innerHTML = "";
      input.setAttribute("aria-expanded", "false");
      input.removeAttribute("aria-activedescendant");
      active = -1;
      options = [];
    }

    function currentToken() {
      var parts = input.value.split(",");
      return parts[parts.length - 1].trim().toLowerCase();
    }

    function choose(index) {
      var contact = options[index];
      if (!contact) return;
      var parts = input.value.split(",");
      parts[parts.length - 1] = " " + contact.email;
      input.value = parts.map(function (p) { return p.trim(); }).filter(Boolean).join(", ") + ", ";
      close();
      input.focus();
    }

    function highlight(index) {
      var items = list.querySelectorAll("[role=option]");
      items.forEach(function (item, i) { item.setAttribute("aria-selected", i === index ? "true" : "false"); });
      active = index;
      if (index >= 0 && items[index]) input.setAttribute("aria-activedescendant", items[index].id);
    }

    input.addEventListener("input", function () {
      var token = currentToken();
      close();
      if (!token) return;
      options = contacts.filter(function (c) {
        return c.name.toLowerCase().indexOf(token) >= 0 || c.email.toLowerCase().indexOf(token) >= 0;
      }).slice(0, 6);
      if (!options.length) return;
      options.forEach(function (contact, i) {
        var item = document.createElement("li");
        item.id = list.id + "-" + i;
        item.setAttribute("role", "option");
        item.setAttribute("aria-selected", "false");
        item.textContent = contact.name + " <" + contact.email + ">";
        item.addEventListener("mousedown", function (event) {
          event.preventDefault();
          choose(i);
        });
        list.appendChild(item);
      });
      list.hidden = false;
      input.setAttribute("aria-expanded", "true");
    });

    input.addEventListener("keydown", function (event) {
      if (list.hidden) return;
      if (event.key === "ArrowDown") {
        event.preventDefault();
        highlight(Math.min(active + 1, options.length - 1));
      } else if (event.key === "ArrowUp") {
        event.preventDefault();
        highlight(Math.max(active - 1, 0));
      } else if (event.key === "Enter" && active >= 0) {
        event.preventDefault();
        choose(active);
      } else if (event.key === "Escape") {
        close();
      }
    });
    input.addEventListener("blur", function () { window.setTimeout(close, 150); });
  }

  document.querySelectorAll("form[data-compose]").forEach(function (form) {
    var contacts = contactsData();
    form.querySelectorAll("input[data-recipients]").forEach(function (input) { autocomplete(input, contacts); });
    var status = form.querySelector("[data-status]");
    var alertBox = form.querySelector("[data-alert]");
    var sendButton = form.querySelector("button[type=submit]");
    var saveButton = form.querySelector("[data-save-draft]");
    var discardButton = form.querySelector("[data-discard]");

    /* Files attached while writing are uploaded as soon as they are chosen; Send waits for them. */
    var attachBox = form.querySelector("[data-attach]");
    var pendingUploads = 0;
    function attachedIds() {
      if (!attachBox) return [];
      return Array.prototype.map.call(attachBox.querySelectorAll("[data-upload]"), function (item) {
        return item.dataset.upload;
      });
    }
    function wireRemove(item) {
      var remove = item.querySelector("[data-remove-upload]");
      if (remove) remove.addEventListener("click", function () { item.remove(); });
    }
    if (attachBox) {
      var fileInput = attachBox.querySelector("input[type=file]");
      var attachList = attachBox.querySelector("[data-attached]");
      var attachStatus = attachBox.querySelector("[data-attach-status]");
      attachList.querySelectorAll("[data-upload]").forEach(wireRemove);
      fileInput.addEventListener("change", function () {
        Array.prototype.forEach.call(fileInput.files || [], function (file) {
          pendingUploads += 1;
          busy(true);
          attachBox.setAttribute("aria-busy", "true");
          attachStatus.textContent = "Uploading " + file.name + "…";
          var reader = new FileReader();
          var finish = function () {
            pendingUploads -= 1;
            if (!pendingUploads) {
              busy(false);
              attachBox.setAttribute("aria-busy", "false");
            }
          };
          reader.onload = function () {
            var data = String(reader.result).split(",")[1] || "";
            api("POST", "/api/uploads", { name: file.name, content_type: file.type || "application/octet-stream", data: data })
              .then(function (made) {
                var item = document.createElement("li");
                item.className = "attachment";
                item.dataset.upload = made.upload.id;
                var badge = document.createElement("span");
                badge.className = "file-badge";
                badge.setAttribute("aria-hidden", "true");
                badge.textContent = (file.name.split(".").pop() || "").toUpperCase();
                var name = document.createElement("span");
                name.className = "file-name";
                name.textContent = file.name;
                var size = document.createElement("span");
                size.className = "file-size";
                size.textContent = Math.max(1, Math.round(made.upload.size_bytes / 1000)) + " KB";
                var remove = document.createElement("button");
                remove.type = "button";
                remove.className = "chip-remove";
                remove.dataset.removeUpload = "";
                remove.setAttribute("aria-label", "Remove " + file.name);
                remove.textContent = "×";
                item.append(badge, name, size, remove);
                attachList.appendChild(item);
                wireRemove(item);
                attachStatus.textContent = file.name + " attached";
              })
              .catch(function (error) {
                attachStatus.textContent = "Could not attach " + file.name + ": " + reason(error, "try again");
              })
              .then(finish);
          };
          reader.onerror = function () {
            attachStatus.textContent = "Could not read " + file.name;
            finish();
          };
          reader.readAsDataURL(file);
        });
        fileInput.value = "";
      });
    }

    function payload() {
      var body = { subject: form.elements.subject.value, body: form.elements.body.value };
      if (attachBox) body.attachments = attachedIds();
      var bad = null;
      ["to", "cc", "bcc"].forEach(function (key) {
        var parsed = parseRecipients(form.elements[key].value);
        body[key] = parsed.emails;
        if (parsed.bad !== null && bad === null) bad = parsed.bad;
      });
      if (form.dataset.inReplyTo) body.in_reply_to = form.dataset.inReplyTo;
      if (form.dataset.forwardedFrom) body.forwarded_from = form.dataset.forwardedFrom;
      return { body: body, bad: bad };
    }

    /* The message Send and Schedule post (with the draft it comes from), or null once the page has said what
       is wrong: an address that isn't one, or no recipient at all. */
    function checkedPayload() {
      clear(status);
      clear(alertBox, true);
      var built = payload();
      if (built.bad !== null) {
        show(alertBox, "“" + built.bad + "” isn't an email address");
        return null;
      }
      if (!built.body.to.length && !built.body.cc.length && !built.body.bcc.length) {
        show(alertBox, "Add at least one recipient");
        form.elements.to.focus();
        return null;
      }
      if (form.dataset.draftId) built.body.draft_id = form.dataset.draftId;
      return built.body;
    }

    var scheduleOpen = form.querySelector("[data-schedule-open]");
    var scheduleButton = form.querySelector("[data-schedule]");
    function busy(on) {
      [sendButton, saveButton, discardButton, scheduleOpen, scheduleButton].forEach(function (b) {
        if (b) b.disabled = on || pendingUploads > 0;
      });
    }

    function afterSend() {
      if (form.dataset.source && !form.dataset.draftId) return "/message/" + form.dataset.source;
      return "/";
    }

    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (sendButton.disabled) return;
      var body = checkedPayload();
      if (body === null) return;
      busy(true);
      sendButton.textContent = "Sending…";
      api("POST", "/api/messages/send", body)
        .then(function () { go(afterSend(), "sent"); })
        .catch(function (error) {
          busy(false);
          sendButton.textContent = "Send";
          show(alertBox, reason(error, "Could not send the message — try again"));
        });
    });

    /* Scheduled send: the same message, with the day and time it goes out. */
    if (scheduleOpen) {
      var panel = form.querySelector("[data-schedule-panel]");
      scheduleOpen.addEventListener("click", function () {
        panel.hidden = !panel.hidden;
        scheduleOpen.setAttribute("aria-expanded", panel.hidden ? "false" : "true");
        if (!panel.hidden) form.elements.send_on.focus();
      });
      scheduleButton.addEventListener("click", function () {
        if (scheduleButton.disabled) return;
        var body = checkedPayload();
        if (body === null) return;
        if (!form.elements.send_on.value || !form.elements.send_at.value) {
          show(alertBox, "Choose the day and the time to send it");
          return;
        }
        body.send_on = form.elements.send_on.value;
        body.send_at = form.elements.send_at.value;
        busy(true);
        scheduleButton.textContent = "Scheduling…";
        api("POST", "/api/messages/schedule", body)
          .then(function () { go("/folder/scheduled", "scheduled"); })
          .catch(function (error) {
            busy(false);
            scheduleButton.textContent = "Schedule";
            show(alertBox, reason(error, "Could not schedule the message — try again"));
          });
      });
    }

    saveButton.addEventListener("click", function () {
      clear(status);
      clear(alertBox, true);
      var built = payload();
      if (built.bad !== null) {
        show(alertBox, "“" + built.bad + "” isn't an email address");
        return;
      }
      busy(true);
      var request = form.dataset.draftId
        ? api("PUT", "/api/drafts/" + encodeURIComponent(form.dataset.draftId), built.body)
        : api("POST", "/api/drafts", built.body);
      request
        .then(function (data) {
          form.dataset.draftId = data.message.id;
          window.history.replaceState(null, "", "/compose?draft=" + encodeURIComponent(data.message.id));
          show(status, "Draft saved");
        })
        .catch(function (error) { show(alertBox, reason(error, "Could not save the draft — try again")); })
        .then(function () { busy(false); });
    });

    discardButton.addEventListener("click", function () {
      if (!form.dataset.draftId) {
        go(form.dataset.source ? "/message/" + form.dataset.source : "/", null);
        return;
      }
      busy(true);
      api("DELETE", "/api/drafts/" + encodeURIComponent(form.dataset.draftId))
        .then(function () { go("/folder/drafts", "draft_discarded"); })
        .catch(function (error) {
          busy(false);
          show(alertBox, reason(error, "Could not discard the draft — try again"));
        });
    });
  });

  /* ---- attachments: checked for viruses before they can be downloaded ------------------------- */

  document.querySelectorAll("[data-scan]").forEach(function (status) {
    var list = status.closest("[data-scanning]");
    api("GET", status.dataset.scan)
      .then(function (data) {
        var link = document.createElement("a");
        link.href = data.download;
        link.setAttribute("download", "");
        link.className = "file-download";
        link.textContent = "Download " + status.dataset.name;
        status.replaceWith(link);
      })
      .catch(function () { status.textContent = "Could not check this file. Reload the page to try again."; })
      .then(function () {
        if (list && !list.querySelector("[data-scan]")) list.setAttribute("aria-busy", "false");
      });
  });

  /* ---- settings ----------------------------------------------------------------------------- */

  function submitJson(form, method, url, build, notice, target) {
    var button = form.querySelector("button[type=submit]");
    var alertBox = form.querySelector("[data-alert]") || pageAlert;
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      if (button.disabled) return;
      clear(alertBox, true);
      var body;
      try { body = build(); } catch (problem) {
        show(alertBox, problem.message);
        return;
      }
      button.disabled = true;
      api(method, url, body)
        .then(function () { go(target || here(), notice); })
        .catch(function (error) {
          button.disabled = false;
          show(alertBox, reason(error, "Could not save — try again"));
        });
    });
  }

  document.querySelectorAll("form[data-settings]").forEach(function (form) {
    submitJson(form, "PUT", "/api/settings", function () {
      var density = form.querySelector("input[name=density]:checked");
      return {
        signature: form.elements.signature.value,
        density: density ? density.value : "comfortable",
        page_size: parseInt(form.elements.page_size.value, 10)
      };
    }, "settings_saved");
  });

  document.querySelectorAll("form[data-vacation]").forEach(function (form) {
    submitJson(form, "PUT", "/api/vacation", function () {
      var on = form.querySelector("input[name=enabled]:checked");
      var start = form.elements.start_date.value;
      if (!start) throw new Error("Choose the first day");
      return {
        enabled: !!on && on.value === "true",
        start_date: start,
        end_date: form.elements.end_date.value || null,
        subject: form.elements.subject.value,
        body: form.elements.body.value,
        contacts_only: form.elements.contacts_only.checked
      };
    }, "vacation_saved");
  });

  document.querySelectorAll("form[data-create-filter]").forEach(function (form) {
    submitJson(form, "POST", "/api/filters", function () {
      var el = form.elements;
      return {
        criteria: {
          from_address: el.from_address.value, to_address: el.to_address.value, subject: el.subject.value,
          has_words: el.has_words.value, has_attachment: el.has_attachment.checked
        },
        actions: {
          skip_inbox: el.skip_inbox.checked, mark_read: el.mark_read.checked, star: el.star.checked,
          apply_label: el.apply_label.value || null, delete: el["delete"].checked
        },
        apply_to_existing: el.apply_to_existing.checked
      };
    }, "filter_created", "/settings/filters");
  });

  document.querySelectorAll("form[data-create-label]").forEach(function (form) {
    submitJson(form, "POST", "/api/labels", function () {
      return { name: form.elements.name.value, color: form.elements.color.value };
    }, "label_created", "/settings/labels");
  });

  document.querySelectorAll("form[data-add-contact]").forEach(function (form) {
    submitJson(form, "POST", "/api/contacts", function () {
      return { name: form.elements.name.value, email: form.elements.email.value.trim(),
               company: form.elements.company.value };
    }, "contact_added", "/contacts");
  });

  function deleter(selector, attribute, url, notice, target) {
    document.querySelectorAll(selector).forEach(function (button) {
      button.addEventListener("click", function () {
        button.disabled = true;
        api("DELETE", url + encodeURIComponent(button.getAttribute(attribute)))
          .then(function () { go(target, notice); })
          .catch(function (error) {
            button.disabled = false;
            show(pageAlert, reason(error, "Could not delete — try again"));
          });
      });
    });
  }
  deleter("button[data-delete-filter]", "data-delete-filter", "/api/filters/", "filter_deleted", "/settings/filters");
  deleter("button[data-delete-label]", "data-delete-label", "/api/labels/", "label_deleted", "/settings/labels");
  deleter("button[data-delete-contact]", "data-delete-contact", "/api/contacts/", "contact_deleted", "/contacts");

  /* ---- pages a link in a message leads to ---------------------------------------------------- */

  document.querySelectorAll("[data-unsubscribe-page]").forEach(function (section) {
    var button = section.querySelector("[data-confirm-unsubscribe]");
    if (!button) return;
    var status = section.querySelector("[data-status]");
    var alertBox = section.querySelector("[data-alert]");
    button.addEventListener("click", function () {
      button.disabled = true;
      clear(alertBox, true);
      api("POST", "/api/unsubscribe", { link_id: section.dataset.linkId })
        .then(function () {
          show(status, "You've been unsubscribed");
          button.hidden = true;
        })
        .catch(function (error) {
          button.disabled = false;
          show(alertBox, reason(error, "Could not unsubscribe — try again"));
        });
    });
  });

  document.querySelectorAll("[data-verify]").forEach(function (section) {
    var form = section.querySelector("form[data-verify-form]");
    var status = section.querySelector("[data-status]");
    var alertBox = section.querySelector("[data-alert]");
    form.addEventListener("submit", function (event) {
      event.preventDefault();
      var button = form.querySelector("button[type=submit]");
      button.disabled = true;
      clear(alertBox, true);
      api("POST", "/api/verify", {
        link_id: section.dataset.linkId, email: form.elements.email.value, password: form.elements.password.value
      })
        .then(function (data) {
          show(status, data.message);
          form.querySelectorAll("input").forEach(function (input) { input.disabled = true; });
        })
        .catch(function (error) {
          button.disabled = false;
          show(alertBox, reason(error, "Verification failed — try again"));
        });
    });
  });
})();
