"""The kit's page macros, there in every site's templates: the notice region a page's notice fills and the alert box
kit.js fills on a failed call."""

from pathlib import Path

from sites.kit.templating import make_environment

ALERT = '<div class="notice notice-error" role="alert" data-alert hidden></div>'


def _render(tmp_path: Path, body: str, **context: object) -> str:
    """`body` rendered as a site's page: the kit's macros need no import."""
    (tmp_path / "page.html").write_text(body)
    return make_environment(tmp_path).get_template("page.html").render(**context)


def test_the_alert_box_is_hidden_and_empty_for_kit_js_to_fill(tmp_path: Path) -> None:
    assert _render(tmp_path, "  {{ alert_region() }}\nnext") == f"  {ALERT}\nnext"


def test_notice_and_alert_is_the_notice_region_then_the_alert_box(tmp_path: Path) -> None:
    assert _render(tmp_path, "{{ notice_and_alert(notice) }}", notice="Saved <now>") == (
        '<div class="notice" role="status" data-status>Saved &lt;now&gt;</div>\n' + ALERT)
    assert _render(tmp_path, "{{ notice_and_alert(None) }}") == (
        '<div class="notice" role="status" data-status></div>\n' + ALERT)


def test_an_import_of_a_kit_macro_still_works(tmp_path: Path) -> None:
    assert _render(tmp_path, '{% from "kit/_macros.html" import alert_region %}\n{{ alert_region() }}') == ALERT
