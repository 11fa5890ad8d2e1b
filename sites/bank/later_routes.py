"""The pages and API of Meridian Bank's later features: budgets, authorised users on cards and dividends
(sites/bank/later.py makes their worlds). A world without a feature answers 404 for its pages and API
alike, as a bank that does not offer it would (`available`). The writes follow `api.py`'s rules: check
everything, then change the state, step the clock once and record one `commit` event."""

from typing import Any, TypeVar

from fastapi import APIRouter, HTTPException, Request
from fastapi.responses import HTMLResponse

from sites.bank.insights import spending_by_category
from sites.bank.later import BUDGET_CATEGORIES, budget_months, year_totals
from sites.bank.models import (
    AuthorisedUser,
    AuthorisedUserBody,
    BankEpisode,
    Budget,
    BudgetAmountBody,
    BudgetBody,
    ReinvestBody,
    parse_amount,
)
from sites.bank.pages import NOTICES
from sites.kit.dates import month_year
from sites.kit.hooks import hook_point
from sites.kit.lookup import get_or_404
from sites.kit.notices import notice_of
from sites.kit.templating import Pages, format_cents

Feature = TypeVar("Feature")

# The notices these pages show are in `pages.NOTICES` with the rest (the card page shows the authorised users').


def notices() -> dict[str, str]:
    return NOTICES


def available(feature: Feature | None, what: str) -> Feature:
    """A later feature's part of the state; 404 in a world without it."""
    if feature is None:
        raise HTTPException(404, f"{what} are not available on this account.")
    return feature


def later_router(ui: Pages) -> APIRouter:
    router = APIRouter()

    # -- budgets ----------------------------------------------------------------------------------------

    @router.get("/budgets", response_class=HTMLResponse)
    @hook_point("budgets", "page")
    async def budgets(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        budgets = available(state.budgets, "Budgets")
        month = episode.clock.now().strftime("%Y-%m")
        spent = {r.category: r.total_cents for r in spending_by_category(state, "a1", month)}
        rows = [{"b": b, "spent": spent.get(b.category, 0), "left": b.amount_cents - spent.get(b.category, 0)}
                for b in budgets]
        taken = {b.category for b in budgets}
        episode.emit.navigate("view_budgets", results=[b.id for b in budgets])
        return ui.render(episode, "budgets.html", title="Budgets", rows=rows, month_name=month_year(month),
                         options=[c for c in BUDGET_CATEGORIES if c not in taken],
                         notice=notice_of(request, notices()), active="budgets")

    @router.get("/budgets/{budget_id}", response_class=HTMLResponse)
    @hook_point("budget", "page", target=lambda kw: kw["budget_id"])
    async def budget(budget_id: str, request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        found = get_or_404(available(state.budgets, "Budgets"), budget_id, detail="There is no such budget.")
        episode.emit.inspect("view_budget", found.id, revealed=["past_months"])
        return ui.render(episode, "budget.html", title=f"{found.category} budget", b=found,
                         months=budget_months(state, found, episode.clock.now().date()),
                         notice=notice_of(request, notices()), active="budgets")

    @router.post("/api/budgets", status_code=201)
    @hook_point("add_budget", "write", target=lambda kw: kw["body"].category)
    async def add_budget(body: BudgetBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        budgets = available(state.budgets, "Budgets")
        if body.category not in BUDGET_CATEGORIES:
            raise HTTPException(422, "Choose one of your spending categories.")
        if any(b.category == body.category for b in budgets):
            raise HTTPException(409, f"You already have a budget for {body.category}: change it on its page.")
        made = Budget(id=state.take_id("budget", "b", 0), category=body.category,
                      amount_cents=parse_amount(body.amount, "A budget"), created_at=episode.clock.stamp())
        budgets.append(made)
        budgets.sort(key=lambda b: b.category)
        episode.emit.commit("add_budget", made.id, category=made.category, amount_cents=made.amount_cents,
                            touched=[made.id])
        return {"budget": made.model_dump()}

    @router.put("/api/budgets/{budget_id}")
    @hook_point("update_budget", "write", target=lambda kw: kw["budget_id"])
    async def update_budget(budget_id: str, body: BudgetAmountBody, request: Request,
                            episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        found = get_or_404(available(state.budgets, "Budgets"), budget_id, "budget")
        episode.clock.stamp()
        found.amount_cents = parse_amount(body.amount, "A budget")
        episode.emit.commit("update_budget", found.id, amount_cents=found.amount_cents, touched=[found.id])
        return {"budget": found.model_dump()}

    @router.delete("/api/budgets/{budget_id}")
    @hook_point("remove_budget", "write", target=lambda kw: kw["budget_id"])
    async def remove_budget(budget_id: str, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        budgets = available(state.budgets, "Budgets")
        found = get_or_404(budgets, budget_id, "budget")
        episode.clock.stamp()
        state.budgets = [b for b in budgets if b.id != found.id]
        episode.emit.commit("remove_budget", found.id, touched=[found.id])
        return {"removed": found.id}

    # -- authorised users --------------------------------------------------------------------------------

    @router.post("/api/cards/{card_id}/authorised", status_code=201)
    @hook_point("add_authorised_user", "write", target=lambda kw: kw["card_id"])
    async def add_authorised(card_id: str, body: AuthorisedUserBody, request: Request,
                             episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        users = available(state.authorised_users, "Authorised users")
        card = get_or_404(state.cards, card_id, "card")
        cents = parse_amount(body.daily_limit, "The daily limit")
        if cents > card.daily_spend_cents:
            raise HTTPException(422, f"An authorised user can spend at most the card's own daily limit, "
                                     f"{format_cents(card.daily_spend_cents)}.")
        if any(u.card_id == card.id and u.name.casefold() == body.name.casefold() for u in users):
            raise HTTPException(409, f"{body.name} is already an authorised user on this card.")
        made = AuthorisedUser(id=state.take_id("authorised", "au", 0), card_id=card.id, name=body.name,
                              daily_limit_cents=cents, added_at=episode.clock.stamp())
        users.append(made)
        episode.emit.commit("add_authorised_user", card.id, amount_cents=cents, touched=[made.id])
        return {"user": made.model_dump()}

    @router.delete("/api/authorised/{user_id}")
    @hook_point("remove_authorised_user", "write", target=lambda kw: kw["user_id"])
    async def remove_authorised(user_id: str, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        users = available(state.authorised_users, "Authorised users")
        found = get_or_404(users, user_id, "authorised user")
        episode.clock.stamp()
        state.authorised_users = [u for u in users if u.id != found.id]
        episode.emit.commit("remove_authorised_user", found.card_id, touched=[found.id])
        return {"removed": found.id}

    # -- dividends ---------------------------------------------------------------------------------------

    @router.get("/invest/dividends", response_class=HTMLResponse)
    @hook_point("dividends", "page")
    async def dividends(request: Request, episode: BankEpisode) -> HTMLResponse:
        state = episode.state
        paid = available(state.dividends, "Dividends")
        settings = available(state.reinvestment, "Dividends")
        totals = year_totals(paid, episode.clock.now().date())
        names = {s.symbol: s.name for s in state.securities}
        rows = [{"r": r, "name": names.get(r.symbol, r.symbol), "year": totals.get(r.symbol, 0)} for r in settings]
        episode.emit.navigate("view_dividends", symbols=[r.symbol for r in settings])
        return ui.render(episode, "dividends.html", title="Dividends", rows=rows,
                         history=sorted(paid, key=lambda d: (d.paid_on, d.id), reverse=True), names=names,
                         notice=notice_of(request, notices()), active="invest")

    @router.put("/api/dividends/reinvestment")
    @hook_point("reinvestment", "write")
    async def reinvestment(body: ReinvestBody, request: Request, episode: BankEpisode) -> dict[str, Any]:
        state = episode.state
        settings = available(state.reinvestment, "Dividends")
        wanted = {s.strip().upper() for s in body.symbols}
        held = {r.symbol: r for r in settings}
        for symbol in sorted(wanted):
            if symbol not in held:
                raise HTTPException(422, f"You hold no {symbol} shares.")
            if not held[symbol].pays_dividends:
                raise HTTPException(422, f"{symbol} pays no dividends, so there is nothing to reinvest.")
        episode.clock.stamp()
        for setting in settings:
            setting.reinvest = setting.symbol in wanted
        episode.emit.commit("reinvestment", "reinvestment", symbols=sorted(wanted),
                            touched=[r.id for r in settings])
        return {"reinvestment": [r.model_dump() for r in settings]}

    return router


__all__ = ["later_router"]
