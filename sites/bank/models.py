"""Meridian Bank's state. The grader diffs it by collection: keep field names stable.

Money is integer cents everywhere (`*_cents`); amounts arrive as text ("1234.50") and are parsed
by `parse_amount` (at most two decimals, positive, below a ceiling). Times are ISO-8601 strings
from the episode clock; dates are 'YYYY-MM-DD'.

Collections: `cards`, `travel_notices`, `uploads` (evidence sent with disputes), `tax_documents`,
`lots` (the shares of each holding by purchase), `budgets`, `authorised_users`, `dividends` and
`reinvestment` (later features: absent unless the world's focus turns one on), `accounts`,
`transactions` (signed amounts; running balances are computed back from each account's current
balance), `payees`, `transfers` (money that moved), `scheduled` (future and recurring payments),
`messages` (security messages), `message_actions` (buttons pressed in a message), `disputes`,
`securities` (quotes move on the episode clock), `holdings`, `order_reviews`, `orders`. Top-level
objects: `user`, `limits`, `alerts`. `next_ids` is bookkeeping.
"""

import re
from datetime import date
from random import Random
from typing import TYPE_CHECKING, Annotated, Literal

from pydantic import BaseModel, Field, StringConstraints, field_validator

from sites.kit.bodies import Id
from sites.kit.bodies import RequestBody as _Body
from sites.kit.bodies import text as _text
from sites.kit.deps import EpisodeOf
from sites.kit.ids import TakesIds
from sites.kit.lookup import find
from sites.kit.omitting import OmitsUnused

if TYPE_CHECKING:
    from scenarios.clock import EpisodeClock

AccountKind = Literal["checking", "savings", "brokerage"]
Frequency = Literal["once", "weekly", "monthly"]
FREQUENCIES: dict[str, str] = {"once": "Just once", "weekly": "Every week", "monthly": "Every month"}
PAGE_SIZE = 20
MAX_AMOUNT_CENTS = 100_000_000          # $1,000,000.00: no single amount is larger
LIMIT_CEILING_CENTS = 5_000_000         # $50,000.00: the highest limit a customer may set
PRICE_BAND_BPS = 50                     # a market order is re-reviewed if the quote moved more than 0.5%
QUOTE_MINUTES = 1                       # quotes refresh once per episode-clock minute


class Customer(BaseModel):
    name: str
    email: str
    customer_id: str


class Account(BaseModel):
    id: str
    name: str
    kind: AccountKind
    number: str = Field(description="the full account number (pages show the last four digits)")
    balance_cents: int
    opened_on: str

    @property
    def last4(self) -> str:
        return self.number[-4:]


class Transaction(BaseModel):
    id: str
    account_id: str
    posted_at: str
    description: str = Field(description="as the listing shows it")
    amount_cents: int = Field(description="negative: money out")
    category: str
    kind: Literal["card", "transfer", "payment", "deposit", "interest", "fee", "trade"]
    merchant: str = ""
    location: str = Field(default="", description="shown on the detail page only")
    card: str = Field(default="", description="the card used, shown on the detail page only")
    reference: str = ""
    transfer_id: str | None = None


class Payee(BaseModel):
    id: str
    name: str
    bank: str
    account_number: str
    routing_number: str
    nickname: str = ""
    status: Literal["pending", "active"]
    added_at: str
    code: str = Field(default="", description="the confirmation code sent as a security message")

    @property
    def last4(self) -> str:
        return self.account_number[-4:]


class Transfer(BaseModel):
    id: str
    from_account_id: str
    to_account_id: str | None = None
    payee_id: str | None = None
    amount_cents: int
    memo: str = ""
    created_at: str
    scheduled_id: str | None = None


class Scheduled(BaseModel):
    id: str
    from_account_id: str
    to_account_id: str | None = None
    payee_id: str | None = None
    amount_cents: int
    frequency: Frequency
    next_date: str
    end_date: str | None = Field(default=None, description="the last day a repeat may go out (None: until cancelled)")
    memo: str = ""
    status: Literal["active", "cancelled"] = "active"
    created_at: str


class Message(BaseModel):
    id: str
    sender: str
    sender_address: str
    subject: str
    body: str
    sent_at: str
    read: bool = False
    kind: Literal["code", "notice", "alert"]
    action_label: str = Field(default="", description="a button in the message, if any")
    reported: bool = False


class MessageAction(BaseModel):
    id: str
    message_id: str
    label: str
    at: str


class Dispute(BaseModel):
    id: str
    transaction_id: str
    reason: Literal["duplicate", "not_recognised", "wrong_amount", "not_received"]
    note: str = ""
    evidence_id: str | None = Field(default=None, description="an upload sent with the dispute")
    opened_at: str


class Security(BaseModel):
    symbol: str
    name: str
    exchange: str
    base_cents: int
    wobble_bps: int = Field(description="how far the quote strays from its base, minute to minute")
    quote_seed: int
    shift_bps: int = Field(default=0, description="a lasting move of the market (news, a jump)")
    jump_bps: int = Field(default=0, description="a move still to come, on the next order for it")


class Holding(BaseModel):
    id: str
    symbol: str
    shares: int
    cost_cents: int = Field(description="what the shares cost in total")


class OrderReview(BaseModel):
    id: str
    symbol: str
    side: Literal["buy", "sell"]
    order_type: Literal["market", "limit"]
    shares: int
    limit_cents: int | None = None
    quote_cents: int
    estimate_cents: int
    created_at: str
    used: bool = False
    lot_id: str | None = None


class Order(BaseModel):
    id: str
    symbol: str
    side: Literal["buy", "sell"]
    order_type: Literal["market", "limit"]
    shares: int
    limit_cents: int | None = None
    status: Literal["open", "filled", "cancelled"]
    placed_at: str
    filled_at: str | None = None
    fill_cents: int | None = None
    review_id: str | None = None
    lot_id: str | None = Field(default=None, description="the lot a sale of specific shares sold from")


class Card(BaseModel):
    id: str
    name: str = Field(description="the card's kind as statements print it: Debit card, Virtual card")
    last4: str
    account_id: str
    frozen: bool = False
    frozen_at: str | None = None
    daily_spend_cents: int
    max_daily_spend_cents: int = Field(description="the product's ceiling: no customer may set more")
    expires: str = Field(description="MM/YY")

    @property
    def label(self) -> str:
        return f"{self.name} ••{self.last4}"


class TravelNotice(BaseModel):
    id: str
    card_id: str
    destination: str
    start_date: str
    end_date: str
    created_at: str


class Upload(BaseModel):
    """A file sent as evidence with a dispute: what the bank keeps of it, not its bytes."""

    id: str
    name: str
    content_type: str
    size_bytes: int
    sha256: str
    uploaded_at: str


class TaxDocument(BaseModel):
    id: str
    form: Literal["1099-INT", "1099-DIV"]
    year: int
    account_id: str
    issued_on: str
    corrected: bool = False
    boxes: dict[str, int] = Field(description="box label -> cents, as printed on the form")


class Lot(BaseModel):
    """Shares of a holding bought together: what a sale of specific shares picks from."""

    id: str
    symbol: str
    bought_on: str
    shares: int
    price_cents: int = Field(description="what one share cost")


class Budget(BaseModel):
    """What the customer means to spend on one category of Everyday Checking a month."""

    id: str
    category: str
    amount_cents: int
    created_at: str


class AuthorisedUser(BaseModel):
    """Someone who pays with their own card on one of the customer's cards, up to their own daily limit."""

    id: str
    card_id: str
    name: str
    daily_limit_cents: int
    added_at: str


class Dividend(BaseModel):
    """A dividend paid on a holding into the brokerage cash."""

    id: str
    symbol: str
    paid_on: str
    per_share_cents: int
    shares: int
    amount_cents: int
    reinvested: bool = False


class Reinvestment(BaseModel):
    """Whether a holding's dividends buy more of it (True) or are paid as cash; one per holding."""

    id: str = Field(description="the holding's id")
    symbol: str
    reinvest: bool = False
    pays_dividends: bool = True


class AlertSettings(BaseModel):
    low_balance_on: bool = False
    low_balance_cents: int = 50_000
    large_payment_on: bool = False
    large_payment_cents: int = 100_000
    card_abroad_on: bool = False
    new_payee_on: bool = True
    channel: Literal["email", "text", "both"] = "email"


class Limits(BaseModel):
    daily_transfer_cents: int
    single_transfer_cents: int
    atm_daily_cents: int


class BankState(TakesIds, OmitsUnused):
    # Features later than the first worlds: None (and absent from the JSON) unless the world's focus turns
    # them on, so the older tasks' worlds keep their bytes (tests/sites/test_digests.py).
    _omit_when_unset = ("budgets", "authorised_users", "dividends", "reinvestment")

    user: Customer
    accounts: list[Account]
    transactions: list[Transaction]
    payees: list[Payee]
    transfers: list[Transfer] = Field(default_factory=list)
    scheduled: list[Scheduled] = Field(default_factory=list)
    messages: list[Message] = Field(default_factory=list)
    message_actions: list[MessageAction] = Field(default_factory=list)
    disputes: list[Dispute] = Field(default_factory=list)
    securities: list[Security]
    holdings: list[Holding]
    order_reviews: list[OrderReview] = Field(default_factory=list)
    orders: list[Order] = Field(default_factory=list)
    limits: Limits
    cards: list[Card] = Field(default_factory=list)
    travel_notices: list[TravelNotice] = Field(default_factory=list)
    uploads: list[Upload] = Field(default_factory=list)
    tax_documents: list[TaxDocument] = Field(default_factory=list)
    lots: list[Lot] = Field(default_factory=list)
    alerts: AlertSettings = Field(default_factory=AlertSettings)
    budgets: list[Budget] | None = None  # worlds with monthly budgets (a Budgets page)
    authorised_users: list[AuthorisedUser] | None = None  # worlds whose card pages take authorised users
    dividends: list[Dividend] | None = None  # worlds with a dividend history (Investments › Dividends)
    reinvestment: list[Reinvestment] | None = None  # the same worlds: each holding's reinvestment setting
    code_seed: int = Field(description="seeds the confirmation codes of new payees")
    next_ids: dict[str, int]

    def account(self, account_id: str) -> Account | None:
        return find(self.accounts, account_id)

    def cash_account(self) -> Account:
        found = next(a for a in self.accounts if a.kind == "brokerage")
        return found

    def payee(self, payee_id: str) -> Payee | None:
        return find(self.payees, payee_id)

    def transaction(self, transaction_id: str) -> Transaction | None:
        return find(self.transactions, transaction_id)

    def security(self, symbol: str) -> Security | None:
        return next((s for s in self.securities if s.symbol == symbol.upper()), None)

    def holding(self, symbol: str) -> Holding | None:
        return find(self.holdings, symbol, key="symbol")

    def review(self, review_id: str) -> OrderReview | None:
        return find(self.order_reviews, review_id)

    def history(self, account_id: str) -> list[Transaction]:
        """Newest first."""
        return sorted((t for t in self.transactions if t.account_id == account_id),
                      key=lambda t: (t.posted_at, t.id), reverse=True)


def quote_cents(security: Security, minute: int) -> int:
    """The quote at an episode-clock minute: its base, a lasting shift, and a seeded wobble."""
    wobble = Random(security.quote_seed * 1_000_003 + minute).uniform(-1.0, 1.0) * security.wobble_bps
    return max(1, round(security.base_cents * (10_000 + security.shift_bps + wobble) / 10_000))


def quote_minute(clock: "EpisodeClock") -> int:
    """Which quote period the episode's clock is in (quotes move every QUOTE_MINUTES)."""
    return int((clock.now() - clock.epoch).total_seconds() // 60) // QUOTE_MINUTES


# ---- request bodies (every JSON write) -------------------------------------------------------------

_AMOUNT = re.compile(r"^\d{1,12}(\.\d{1,2})?$", re.ASCII)


def parse_amount(raw: str, what: str = "The amount") -> int:
    """'1,234.5' -> 123450 cents; negatives, more than two decimals or absurd sizes are refused."""
    text = raw.strip().lstrip("$").replace(",", "")
    if text.startswith("-"):
        raise ValueError(f"{what} must be positive")
    if not _AMOUNT.fullmatch(text):
        raise ValueError(f"{what} must be a number with at most two decimals, like 125.50")
    whole, _, frac = text.partition(".")
    cents = int(whole) * 100 + int((frac + "00")[:2])
    if cents <= 0:
        raise ValueError(f"{what} must be more than zero")
    if cents > MAX_AMOUNT_CENTS:
        raise ValueError(f"{what} is too large")
    return cents


Amount = Annotated[str, StringConstraints(strict=True, max_length=20)]
Day = Annotated[str, StringConstraints(strict=True, max_length=10)]


def iso_day(value: str) -> str:
    """'' or a real YYYY-MM-DD date (anything else is refused)."""
    if value:
        if not re.fullmatch(r"\d{4}-\d{2}-\d{2}", value):
            raise ValueError("use a date like 2025-03-14")
        try:
            date.fromisoformat(value)
        except ValueError:
            raise ValueError("use a date like 2025-03-14") from None
    return value


class TransferBody(_Body):
    from_account_id: Id
    to_id: Id = Field(description="one of your accounts (a…) or a saved payee (p…)")
    amount: Amount
    memo: Annotated[str, _text(0, 140)] = ""
    date: Annotated[str, StringConstraints(strict=True, max_length=10)] = Field(
        default="", description="YYYY-MM-DD; empty or today: now; later: a scheduled payment")
    frequency: Frequency = "once"
    end_date: Annotated[str, StringConstraints(strict=True, max_length=10)] = Field(
        default="", description="YYYY-MM-DD: the last day a repeat may go out; empty: until cancelled")

    _amount = field_validator("amount")(classmethod(lambda cls, v: (parse_amount(v), v)[1]))

    @field_validator("date", "end_date")
    @classmethod
    def _date(cls, value: str) -> str:
        return iso_day(value)


class PayeeBody(_Body):
    name: Annotated[str, _text(2, 60)]
    bank: Annotated[str, _text(2, 60)]
    account_number: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, pattern=r"^\d{8,12}$")]
    routing_number: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, pattern=r"^\d{9}$")]
    nickname: Annotated[str, _text(0, 40)] = ""


class ConfirmBody(_Body):
    code: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, pattern=r"^\d{6}$")]


class LimitsBody(_Body):
    daily_transfer: Amount
    single_transfer: Amount
    atm_daily: Amount

    @field_validator("daily_transfer", "single_transfer", "atm_daily")
    @classmethod
    def _amounts(cls, value: str) -> str:
        if parse_amount(value, "A limit") > LIMIT_CEILING_CENTS:
            raise ValueError("limits can be at most $50,000.00")
        return value


class DisputeBody(_Body):
    reason: Literal["duplicate", "not_recognised", "wrong_amount", "not_received"]
    note: Annotated[str, _text(0, 500)] = ""
    evidence_id: Id | None = None


UPLOAD_MAX_BYTES = 512 * 1024  # a receipt photo: larger files are refused (413)
UPLOAD_MAX_BASE64 = (UPLOAD_MAX_BYTES + 2) // 3 * 4


class UploadBody(_Body):
    name: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=1, max_length=120)]
    content_type: Literal["image/png", "image/jpeg"]
    data: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=UPLOAD_MAX_BASE64)]  # base64


class FreezeBody(_Body):
    frozen: bool = Field(strict=True)


class CardLimitBody(_Body):
    daily_spend: Amount


class TravelBody(_Body):
    destination: Annotated[str, _text(2, 60)]
    start_date: Day
    end_date: Day

    _days = field_validator("start_date", "end_date")(classmethod(lambda cls, v: iso_day(v)))


class AlertsBody(_Body):
    low_balance_on: bool = Field(strict=True)
    low_balance: Amount
    large_payment_on: bool = Field(strict=True)
    large_payment: Amount
    card_abroad_on: bool = Field(strict=True)
    new_payee_on: bool = Field(strict=True)
    channel: Literal["email", "text", "both"]

    _amounts = field_validator("low_balance", "large_payment")(
        classmethod(lambda cls, v: (parse_amount(v, "An alert amount"), v)[1]))


class ReviewBody(_Body):
    symbol: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, to_upper=True,
                                             pattern=r"^[A-Za-z.]{1,6}$")]
    side: Literal["buy", "sell"]
    order_type: Literal["market", "limit"]
    shares: Annotated[int, Field(strict=True, ge=1, le=100_000)]
    limit_price: Amount | None = None
    lot_id: Id | None = Field(default=None, description="sell these shares (a sale without one takes the oldest first)")

    @field_validator("limit_price")
    @classmethod
    def _limit(cls, value: str | None) -> str | None:
        if value:
            parse_amount(value, "The limit price")
        return value or None


class BudgetBody(_Body):
    category: Annotated[str, _text(1, 40)]
    amount: Amount

    _amount = field_validator("amount")(classmethod(lambda cls, v: (parse_amount(v, "A budget"), v)[1]))


class BudgetAmountBody(_Body):
    amount: Amount

    _amount = field_validator("amount")(classmethod(lambda cls, v: (parse_amount(v, "A budget"), v)[1]))


class AuthorisedUserBody(_Body):
    name: Annotated[str, _text(2, 60)]
    daily_limit: Amount

    _amount = field_validator("daily_limit")(
        classmethod(lambda cls, v: (parse_amount(v, "The daily limit"), v)[1]))


class ReinvestBody(_Body):
    symbols: Annotated[list[Annotated[str, StringConstraints(strict=True, max_length=8)]], Field(max_length=20)] = \
        Field(description="the holdings whose dividends are reinvested (the others are paid as cash)")


class PlaceBody(_Body):
    review_id: Id


class ReportBody(_Body):
    reported: bool = Field(strict=True)


DISPUTE_REASONS: dict[str, str] = {"duplicate": "I was charged twice", "not_recognised": "I don't recognise it",
                                   "wrong_amount": "The amount is wrong", "not_received": "I didn't receive it"}



# What every bank handler takes: the request's episode, its state typed (`sites.kit.deps`).
BankEpisode = EpisodeOf[BankState]
