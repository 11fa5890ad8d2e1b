import copy
from pathlib import Path
from typing import Any

import pytest

from grader.bindings import BindingError, fill
from scenarios.loader import CATALOG_DIR, load_catalog
from scenarios.schema import Task

SHOP_TASKS = CATALOG_DIR / "shop" / "tasks.yaml"

BINDINGS: dict[str, Any] = {
    "target": {"id": "p007", "name": "Ember Skillet", "seller": "Acme"},
    "hard_negative_ids": ["p008", "p009"],
    "default_address_id": "a1",
    "new_address": {
        "full_name": "Ada L",
        "street": "1 Loop Rd",
        "city": "Oslo",
        "postal_code": "0150",
        "country": "Norway",
    },
}


def shop_state() -> dict[str, Any]:
    """A small shop state shaped like sites/shop/models.py's ShopState."""
    return {
        "user": {"id": "u1", "name": "Sam", "email": "sam@example.com"},
        "categories": [{"slug": "kitchen", "name": "Kitchen"}],
        "products": [
            {"id": "p007", "name": "Ember Skillet", "price_cents": 2999, "seller": "Acme", "stock": 5},
            {"id": "p008", "name": "Ember Skillet", "price_cents": 2999, "seller": "Bolt", "stock": 3},
            {"id": "p009", "name": "Ember Skillet", "price_cents": 2999, "seller": "Cato", "stock": 9},
        ],
        "addresses": [
            {"id": "a1", "full_name": "Sam", "street": "9 Elm", "city": "Bergen", "postal_code": "5003",
             "country": "Norway", "is_default": True, "created_at": "2025-01-01T00:00:00Z"},
            {"id": "a2", "full_name": "Sam", "street": "3 Oak", "city": "Bergen", "postal_code": "5004",
             "country": "Norway", "is_default": False, "created_at": "2025-01-02T00:00:00Z"},
        ],
        "cart_items": [],
        "orders": [{"id": "o1000", "lines": [{"product_id": "p008", "product_name": "Ember Skillet", "quantity": 1,
                                               "unit_price_cents": 2999}],
                    "product_ids": ["p008"], "shipping": "express", "address_id": "a1", "status": "placed"}],
        "next_ids": {"cart_item": 1, "order": 1001, "address": 3},
    }


def cart_item(item_id: str = "c1", product: str = "p007", quantity: int = 1) -> dict[str, Any]:
    return {"id": item_id, "product_id": product, "product_name": "Ember Skillet", "quantity": quantity,
            "unit_price_cents": 2999, "added_at": "2025-01-03T00:00:00Z"}


def bought(state: dict[str, Any], product: str = "p007", order_id: str = "o1001") -> dict[str, Any]:
    """What placing an order for one `product` does to the shop state."""
    final = copy.deepcopy(state)
    final["orders"].append({
        "id": order_id, "lines": [{"product_id": product, "product_name": "Ember Skillet", "quantity": 1,
                                   "unit_price_cents": 2999}],
        "product_ids": [product], "shipping": "standard", "address_id": "a1", "status": "placed",
    })
    for p in final["products"]:
        if p["id"] == product and isinstance(p["stock"], int):
            p["stock"] -= 1
    final["next_ids"] = {**final["next_ids"], "cart_item": 2, "order": int(order_id[1:]) + 1}
    return final


def bound_here(task: Task) -> bool:
    """Whether the task's diff names only the bindings above."""
    try:
        fill(task.canonical_diff.model_dump(mode="json"), BINDINGS)
    except BindingError:
        return False
    return True


@pytest.fixture(scope="session")
def shop_tasks() -> dict[str, Task]:
    """The shop's tasks that change state and whose diff names only the bindings above (the answer tasks' worlds,
    and a compare's, bind other names: tests/grader/test_answers.py)."""
    tasks = {k: t for k, t in load_catalog(SHOP_TASKS).tasks.items() if t.kind == "action" and bound_here(t)}
    assert {"shop_add_to_cart", "shop_buy_by_seller"} <= set(tasks)
    return tasks


def write_catalog(tmp_path: Path, body: str, name: str = "tasks.yaml") -> Path:
    path = tmp_path / name
    path.write_text(body)
    return path
