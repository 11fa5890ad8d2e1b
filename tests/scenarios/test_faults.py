import pytest
from pydantic import ValidationError

from scenarios.faults import ArmedFault, FaultError, Match, parse_fault, registry


def armed(schedule: dict[str, object], toxicity: float = 1.0, seed: int = 7) -> ArmedFault:
    spec, params = parse_fault(
        {"type": "latency", "layer": "network", "schedule": schedule, "toxicity": toxicity,
         "params": {"delay_ms": 10}}, 0)
    return ArmedFault(spec, params, seed)


def firings(fault: ArmedFault, events: int = 10) -> list[bool]:
    return [fault.decide(elapsed_ms=i * 100.0) for i in range(events)]


def test_builtin_types_are_registered_with_their_layer() -> None:
    types = registry()
    assert types["latency"].layer.value == "network"
    assert types["overlay"].layer.value == "client"


@pytest.mark.parametrize(
    ("schedule", "expected"),
    [
        ({"mode": "always"}, [True] * 10),
        ({"mode": "once"}, [True] + [False] * 9),
        ({"mode": "first_n", "n": 3}, [True] * 3 + [False] * 7),
        ({"mode": "every_nth", "n": 3}, [False, False, True] * 3 + [False]),
        ({"mode": "after_n", "n": 8}, [False] * 8 + [True] * 2),
        ({"mode": "window", "start_ms": 200, "duration_ms": 300}, [False] * 2 + [True] * 3 + [False] * 5),
    ],
)
def test_schedules(schedule: dict[str, object], expected: list[bool]) -> None:
    assert firings(armed(schedule)) == expected


def test_probability_draws_repeat_for_the_same_seed_and_differ_across_seeds() -> None:
    a = firings(armed({"mode": "intermittent", "probability": 0.5}, seed=1), 64)
    b = firings(armed({"mode": "intermittent", "probability": 0.5}, seed=1), 64)
    c = firings(armed({"mode": "always"}, toxicity=0.5, seed=2), 64)
    assert a == b
    assert a != c
    assert 10 < sum(a) < 54


def test_schedule_needs_its_fields() -> None:
    with pytest.raises(FaultError, match=r"faults\[3\]\.schedule: .*needs field 'n'"):
        parse_fault({"type": "latency", "layer": "network", "schedule": {"mode": "first_n"},
                     "params": {"delay_ms": 1}}, 3)


def test_default_fault_id_is_type_and_index() -> None:
    spec, _ = parse_fault({"type": "latency", "layer": "network", "params": {"delay_ms": 1}}, 4)
    assert spec.id == "latency#4"


def test_match_request() -> None:
    match = Match(host="shop.test", path="/api/cart*", methods=["post"])
    assert match.matches_request("shop.test", "/api/cart?x=1", "POST")
    assert match.matches_request("SHOP.test", "/api/cart/c1", "POST")
    assert not match.matches_request("shop.test", "/api/cart", "GET")
    assert not match.matches_request("mail.test", "/api/cart", "POST")
    assert not match.matches_request("shop.test", "/cart", "POST")
    assert Match(body_contains="p001").matches_request("h", "/", "POST", body=b'{"product_id":"p001"}')


def test_a_client_target_named_by_a_regular_expression_is_refused() -> None:
    """The page's script matches a target's name as written; a /regex/ would leave the fault never firing."""
    with pytest.raises(ValidationError, match="regular expression"):
        Match(role="button", name="/^Remove the /")
    assert Match(role="button", name="Remove the Visa ending 4242").name == "Remove the Visa ending 4242"
    assert Match(role="link", name="/").name == "/"
