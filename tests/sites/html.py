"""A small HTML reader for the site tests: elements, their text and accessible names (as far as
the sites' pages need), and queries by tag, name, label, role and id. Shared by every site's tests."""

from dataclasses import dataclass, field
from html.parser import HTMLParser

VOID = {"input", "meta", "link", "br", "img", "hr"}


@dataclass
class Element:
    tag: str
    attrs: dict[str, str]
    parts: list[str] = field(default_factory=list)

    @property
    def text(self) -> str:
        return " ".join("".join(self.parts).split())

    @property
    def name(self) -> str:
        """Accessible name, as far as these pages need: aria-label, else the text content."""
        return self.attrs.get("aria-label") or self.text


class Doc(HTMLParser):
    def __init__(self, html: str) -> None:
        super().__init__(convert_charrefs=True)
        self.elements: list[Element] = []
        self._open: list[Element] = []
        self.feed(html)
        self.close()

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {k: v if v is not None else "" for k, v in attrs})
        self.elements.append(element)
        if tag not in VOID:
            self._open.append(element)

    def handle_endtag(self, tag: str) -> None:
        for index in range(len(self._open) - 1, -1, -1):
            if self._open[index].tag == tag:
                del self._open[index:]
                return

    def handle_data(self, data: str) -> None:
        for element in self._open:
            element.parts.append(data)

    # --- queries -----------------------------------------------------------------------------
    def all(self, tag: str, **attrs: str) -> list[Element]:
        return [e for e in self.elements if e.tag == tag and all(e.attrs.get(k) == v for k, v in attrs.items())]

    def named(self, tag: str, name: str) -> list[Element]:
        return [e for e in self.all(tag) if e.name == name]

    def links(self, name: str) -> list[Element]:
        return self.named("a", name)

    def buttons(self, name: str) -> list[Element]:
        return self.named("button", name)

    def labelled(self, label: str) -> Element:
        """The form control a <label> with exactly this text is bound to."""
        labels = [e for e in self.all("label") if e.text == label]
        assert len(labels) == 1, f"expected one label {label!r}, found {len(labels)}"
        target = labels[0].attrs.get("for")
        assert target, f"label {label!r} has no for="
        controls = [e for e in self.elements if e.attrs.get("id") == target]
        assert len(controls) == 1, f"label {label!r} points at {target!r}, found {len(controls)} elements"
        return controls[0]

    def heading(self, level: int = 1) -> str:
        found = self.all(f"h{level}")
        assert found, f"no h{level}"
        return found[0].text

    def role(self, role: str) -> list[Element]:
        return [e for e in self.elements if e.attrs.get("role") == role]

    def by_id(self, element_id: str) -> Element:
        found = [e for e in self.elements if e.attrs.get("id") == element_id]
        assert len(found) == 1, element_id
        return found[0]
