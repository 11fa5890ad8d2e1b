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


def test_line_items_put_totals_under_the_amounts_and_name_the_grand_total(tmp_path: Path) -> None:
    page = ('{% call line_items("Items", ["Item", "Qty", "Amount"], [("Coupon", "−" ~ 250 | money), '
            '("Total", "$9")]) %}'
            '{{ line_item(["Tea <green>", 2, "$11"]) }}\n{% endcall %}')
    (tmp_path / "page.html").write_text(page)
    env = make_environment(tmp_path, {"money": lambda cents: f"${cents / 100:.2f}"})
    html = env.get_template("page.html").render()
    assert html == (
        '<table aria-label="Items">\n'
        '  <thead><tr><th scope="col">Item</th><th scope="col" class="num">Qty</th>'
        '<th scope="col" class="num">Amount</th></tr></thead>\n'
        '  <tbody>\n<tr><td>Tea &lt;green&gt;</td><td class="num">2</td><td class="num">$11</td></tr>\n  </tbody>\n'
        '  <tfoot>\n'
        '    <tr><td colspan="2" class="num">Coupon</td><td class="num">−$2.50</td></tr>\n'
        '    <tr class="grand" role="group" aria-label="Total"><td colspan="2" class="num">Total</td>'
        '<td class="num">$9</td></tr>\n'
        '  </tfoot>\n</table>\n')


def test_with_one_amount_column_a_total_names_itself_in_the_item_column(tmp_path: Path) -> None:
    html = _render(tmp_path, '{% call line_items("Charges", ["Item", "Amount"], [("Total paid", "$5")]) %}'
                             '{% endcall %}')
    grand = '<tr class="grand" role="group" aria-label="Total paid"><td>Total paid</td><td class="num">$5</td></tr>'
    assert grand in html
