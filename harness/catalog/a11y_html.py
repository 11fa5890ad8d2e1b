"""Roles and accessible names read from server-rendered HTML, as far as a plan step needs them.

`webchaos catalog check` walks each task's plan over the rendered pages (no browser): this finds
the elements a step names by ARIA role + accessible name the way Playwright's `get_by_role` does
for plain markup (implicit roles of links, buttons, form controls, headings and rows; names from
aria-label, aria-labelledby, <label>, text content, value, placeholder, title). Script-made content
is invisible here by design: the check covers what the server renders.
"""

import re
from dataclasses import dataclass, field
from html.parser import HTMLParser

_VOID = {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "track", "wbr"}
_INPUT_ROLES = {"search": "searchbox", "checkbox": "checkbox", "radio": "radio", "submit": "button",
                "button": "button", "reset": "button", "image": "button", "number": "spinbutton",
                "range": "slider", "file": "button"}  # a file input: a button, as Playwright finds it
_TEXT_INPUTS = {"", "text", "email", "tel", "url", "password", "date", "time", "datetime-local", "month", "week"}
_NAME_FROM_CONTENT = {"link", "button", "heading", "row", "cell", "columnheader", "tab", "menuitem", "option",
                      "checkbox", "radio", "treeitem", "gridcell", "rowheader", "switch"}


_CONTAINERS = {"article", "section", "li", "tr", "form", "fieldset"}
_CONTAINER_ROLES = {"region", "group", "listitem"}


def _inside(node: "Node", scope: "Node") -> bool:
    parent = node.parent
    while parent is not None:
        if parent is scope:
            return True
        parent = parent.parent
    return False


@dataclass
class Node:
    tag: str
    attrs: dict[str, str]
    parent: "Node | None"
    children: list["Node | str"] = field(default_factory=list)

    def text(self) -> str:
        out: list[str] = []
        for child in self.children:
            if isinstance(child, str):
                out.append(child)
            elif not child.hidden():
                out.append(" " + (child.attrs.get("alt", "") if child.tag == "img" else child.text()) + " ")
        return " ".join("".join(out).split())

    def text_content(self) -> str:
        """All the text inside, hidden parts included (as Playwright's `has_text` reads a container),
        but not script, style or template source."""
        out: list[str] = []
        for child in self.children:
            if isinstance(child, str):
                out.append(child)
            elif child.tag not in ("script", "style", "template"):
                out.append(" " + child.text_content() + " ")
        return " ".join("".join(out).split())

    def hidden(self) -> bool:
        style = self.attrs.get("style", "").replace(" ", "").lower()
        return ("hidden" in self.attrs or self.attrs.get("aria-hidden") == "true" or "display:none" in style
                or self.tag in ("script", "style", "template", "head", "title")
                or (self.tag == "input" and self.attrs.get("type", "").lower() == "hidden"))

    def visible(self) -> bool:
        node: Node | None = self
        while node is not None:
            if node.hidden():
                return False
            node = node.parent
        return True

    def ancestor(self, tag: str) -> "Node | None":
        node = self.parent
        while node is not None and node.tag != tag:
            node = node.parent
        return node


class Page(HTMLParser):
    """One rendered page: its nodes, with `role_of`, `name_of` and `find`."""

    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Node("#document", {}, None)
        self.nodes: list[Node] = []
        self._stack = [self.root]
        self.feed(html)
        self.close()
        self.by_id = {n.attrs["id"]: n for n in self.nodes if "id" in n.attrs}
        self.labels: dict[str, list[Node]] = {}
        for node in self.nodes:
            if node.tag == "label" and node.attrs.get("for"):
                self.labels.setdefault(node.attrs["for"], []).append(node)
        # A role never changes once parsed; `find` runs thousands of times per page in the catalog check.
        self.by_role: dict[str, list[Node]] = {}
        for node in self.nodes:
            role = self.role_of(node)
            if role is not None:
                self.by_role.setdefault(role, []).append(node)

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        node = Node(tag, {k: v if v is not None else "" for k, v in attrs}, self._stack[-1])
        self._stack[-1].children.append(node)
        self.nodes.append(node)
        if tag not in _VOID:
            self._stack.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        if tag not in _VOID and self._stack[-1].tag == tag:
            self._stack.pop()

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self._stack) - 1, 0, -1):
            if self._stack[index].tag == tag:
                del self._stack[index:]
                return

    def handle_data(self, data: str) -> None:
        self._stack[-1].children.append(data)

    # --- roles and names ---------------------------------------------------------------------------
    @staticmethod
    def role_of(node: Node) -> str | None:
        explicit = node.attrs.get("role", "").split()
        if explicit:
            return explicit[0]
        tag, kind = node.tag, node.attrs.get("type", "").lower()
        if tag == "a" and "href" in node.attrs:
            return "link"
        if tag == "button":
            return "button"
        if tag == "input":
            if kind in ("text", "search", "email", "tel", "url", "") and "list" in node.attrs:
                return "combobox"
            if kind in _INPUT_ROLES:
                return _INPUT_ROLES[kind]
            return "textbox" if kind in _TEXT_INPUTS else None
        if tag == "textarea":
            return "textbox"
        if tag == "select":
            return "listbox" if "multiple" in node.attrs or int(node.attrs.get("size", "1") or 1) > 1 else "combobox"
        if re.fullmatch(r"h[1-6]", tag):
            return "heading"
        return {"tr": "row", "td": "cell", "th": "columnheader", "nav": "navigation", "main": "main",
                "form": "form", "dialog": "dialog", "ul": "list", "ol": "list", "li": "listitem",
                "table": "table", "article": "article", "option": "option"}.get(tag)

    def name_of(self, node: Node) -> str:
        label = node.attrs.get("aria-labelledby")
        if label:
            parts = [self.by_id[i].text() for i in label.split() if i in self.by_id]
            if any(parts):
                return " ".join(" ".join(parts).split())
        if node.attrs.get("aria-label", "").strip():
            return " ".join(node.attrs["aria-label"].split())
        role = self.role_of(node)
        if node.tag in ("input", "textarea", "select") and node.attrs.get("type", "").lower() not in (
                "submit", "button", "reset"):
            labels = self.labels.get(node.attrs.get("id", ""), [])
            wrapping = node.ancestor("label")
            texts = [lab.text() for lab in labels] + ([wrapping.text()] if wrapping is not None else [])
            if any(texts):
                return " ".join(" ".join(t for t in texts if t).split())
            return node.attrs.get("placeholder") or node.attrs.get("title", "")
        if node.tag == "input":
            return node.attrs.get("value") or node.attrs.get("title") or {
                "submit": "Submit", "reset": "Reset"}.get(node.attrs.get("type", "").lower(), "")
        if role in _NAME_FROM_CONTENT:
            return node.text() or node.attrs.get("title", "")
        return node.attrs.get("title", "")

    def containers(self, has_text: str) -> list[Node]:
        """The containers (article, section, row, list item, form …) whose text has `has_text`, in document
        order: the reference agent scopes a step's `within` to the last that also has the step's element."""
        wanted = " ".join(has_text.split()).lower()
        return [n for n in self.nodes if (n.tag in _CONTAINERS or n.attrs.get("role") in _CONTAINER_ROLES)
                and wanted in n.text_content().lower()]

    def find(self, role: str, name: str, exact: bool = True, within: str | None = None,
             hidden_too: bool = False) -> list[Node]:
        """Visible elements (or, with `hidden_too`, those a script may show too) with this role whose name
        matches (exact, case-insensitive part, or /regex/), inside the `within` container when given."""
        if within:
            for scope in reversed(self.containers(within)):
                found = [n for n in self.find(role, name, exact, hidden_too=hidden_too) if _inside(n, scope)]
                if found:
                    return found
            return []
        wanted = " ".join(name.split())
        if len(wanted) > 1 and wanted.startswith("/") and wanted.endswith("/"):
            pattern = re.compile(wanted[1:-1])
            fits = lambda got: bool(pattern.search(got))  # noqa: E731
        elif exact:
            fits = lambda got: got == wanted  # noqa: E731
        else:
            fits = lambda got: wanted.lower() in got.lower()  # noqa: E731
        return [n for n in self.by_role.get(role, []) if (hidden_too or n.visible()) and fits(self.name_of(n))]

    def loading(self) -> bool:
        """Whether a part of the page says it is still being filled in by script (`aria-busy="true"`)."""
        return any(n.attrs.get("aria-busy") == "true" for n in self.nodes)

    def text(self) -> str:
        return self.root.text()
