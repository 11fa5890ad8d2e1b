"""The shop's state (graded elsewhere: keep field names stable) and its API request bodies."""

from datetime import date, timedelta
from typing import Annotated, ClassVar, Literal

from pydantic import (
    BaseModel,
    Field,
    StrictBool,
    StrictInt,
    StringConstraints,
)

from sites.kit.bodies import RequestBody as _Body
from sites.kit.deps import EpisodeOf
from sites.kit.ids import TakesIds
from sites.kit.lookup import find
from sites.kit.omitting import OmitsUnused


class Product(BaseModel):
    id: str
    name: str
    category: str
    price_cents: int
    seller: str
    rating: float
    review_count: int
    delivery: str
    attributes: dict[str, str]
    stock: int


class Category(BaseModel):
    slug: str
    name: str


class Address(BaseModel):
    id: str
    full_name: str
    street: str
    city: str
    postal_code: str
    country: str
    is_default: bool
    created_at: str


class User(BaseModel):
    id: str
    name: str
    email: str


class CartItem(BaseModel):
    id: str
    product_id: str
    product_name: str
    quantity: int
    unit_price_cents: int
    added_at: str


class OrderLine(BaseModel):
    product_id: str
    product_name: str
    quantity: int
    unit_price_cents: int


class Order(OmitsUnused):
    _omit_when_unset = ("coupon", "discount_cents", "gift_message", "gift_wrap_cents", "cancelled_at")

    id: str
    lines: list[OrderLine]
    product_ids: list[str]
    address_id: str
    shipping: str
    shipping_cents: int
    subtotal_cents: int
    total_cents: int
    status: str
    placed_at: str
    # Set when the coupons feature is on (a world with `coupons`): the code used and what it took off.
    coupon: str | None = None
    discount_cents: int | None = None
    # Set when the order is a gift (a world whose store offers gift options): the note and the wrap's price.
    gift_message: str | None = None
    gift_wrap_cents: int | None = None
    cancelled_at: str | None = None  # when the user cancelled it before it shipped (status "cancelled")


class Message(BaseModel):
    """A message in the user's account inbox (seeded; none by default)."""

    id: str
    sender: str
    sender_address: str
    subject: str
    body: str
    received_at: str
    action_label: str | None = None
    action_taken: bool = False


class Review(BaseModel):
    """A customer review shown on a product page (seeded; none by default)."""

    id: str
    product_id: str
    author: str
    rating: int
    title: str
    body: str
    helpful_votes: int
    posted_at: str


class ReturnLine(OmitsUnused):
    _omit_when_unset = ("photo",)

    product_id: str
    product_name: str
    quantity: int
    reason: str
    photo: str | None = None  # the upload id of the photo that shows the damage (required when it arrived damaged)


class PhotoUpload(BaseModel):
    """A photo the user uploaded (to prove damage on a return): what the store keeps of it, not its pixels."""

    id: str
    name: str
    content_type: str
    size_bytes: int
    sha256: str
    uploaded_at: str


class Store(BaseModel):
    """A shop the store runs in a city, for picking an order up; what it holds is asked of its own stock system."""

    id: str
    name: str
    address: str
    stock: dict[str, int]  # product id -> units on its shelves (products it does not carry are absent)


class ProductQuestion(OmitsUnused):
    """A question a shopper asked on a product's page, with the answer when one came (the seller's or a buyer's)."""

    _omit_when_unset = ("answer", "answered_by", "answered_at")

    id: str
    product_id: str
    asker: str
    text: str
    asked_at: str
    answer: str | None = None
    answered_by: str | None = None
    answered_at: str | None = None


class StockAlert(BaseModel):
    """The user asked to be emailed when a sold-out product is back in stock."""

    id: str
    product_id: str
    email: str
    created_at: str


class PaymentCard(BaseModel):
    """A payment card saved on the account; the default one pays at checkout."""

    id: str
    brand: str
    last4: str
    expires: str  # MM/YY
    holder: str
    is_default: bool = False


class GiftCard(BaseModel):
    """A Cartwheel gift card code the store knows; redeeming it adds its amount to the account's gift card
    balance (what redeemed cards hold less `ShopState.gift_spent_cents`), once."""

    id: str
    code: str
    amount_cents: int
    redeemed_at: str | None = None


class Invoice(BaseModel):
    """An order's invoice, issued when the user asks for it (its number appears nowhere else)."""

    id: str
    order_id: str
    number: str
    issued_at: str


class ReturnRequest(BaseModel):
    """Items of one order sent back, each with its reason; refunded to the card or as store credit."""

    id: str
    order_id: str
    lines: list[ReturnLine]
    refund_method: str
    refund_cents: int
    status: str
    requested_at: str


class TrackingEvent(BaseModel):
    at: str
    place: str
    description: str


class Shipment(OmitsUnused):
    """A parcel of an order on its way: the carrier's tracking number and the scans the shop has from it, oldest
    first; `newer`: scans the carrier has made since, which only its live lookup returns (None: none)."""

    _omit_when_unset = ("newer",)

    id: str
    order_id: str
    carrier: str
    tracking_number: str
    events: list[TrackingEvent]
    newer: list[TrackingEvent] | None = None


class Coupon(BaseModel):
    """A code in the user's coupon wallet: a percentage off, maybe limited to one department, until a day."""

    code: str
    percent_off: int
    category: str | None
    min_spend_cents: int
    expires_on: str


class WishListItem(BaseModel):
    """A product saved for later on the user's wish list."""

    id: str
    product_id: str
    product_name: str
    added_at: str


class ShopState(TakesIds, OmitsUnused):
    id_width: ClassVar[int] = 0  # of `take_id`'s numbers
    # Features later than the first worlds: None (and absent from the JSON) unless a task's setup turns them on.
    _omit_when_unset = ("returns", "shipments", "coupons", "wishlist", "gift_wrap_cents", "uploads", "invoices",
                        "stores", "gift_cards", "gift_spent_cents", "payment_cards", "cancellations",
                        "questions", "stock_alerts")

    user: User
    categories: list[Category]
    products: list[Product]
    addresses: list[Address]
    cart_items: list[CartItem]
    orders: list[Order]
    next_ids: dict[str, int]
    messages: list[Message] = Field(default_factory=list)
    reviews: list[Review] = Field(default_factory=list)
    returns: list[ReturnRequest] | None = None
    shipments: list[Shipment] | None = None
    coupons: list[Coupon] | None = None
    wishlist: list[WishListItem] | None = None
    gift_wrap_cents: int | None = None  # what gift wrap costs; None: the store offers no gift options
    uploads: list[PhotoUpload] | None = None  # photos sent with returns (worlds with returns that take them)
    invoices: list[Invoice] | None = None  # invoices issued on request (worlds whose orders offer them)
    stores: list[Store] | None = None  # shops to pick up from (worlds whose product pages offer it)
    gift_cards: list[GiftCard] | None = None  # gift card codes (worlds whose accounts take gift cards)
    gift_spent_cents: int | None = None  # spent from redeemed gift cards (the same worlds; the balance is the rest)
    payment_cards: list[PaymentCard] | None = None  # saved cards (worlds whose accounts show them)
    cancellations: bool | None = None  # True: an order not shipped yet can be cancelled from its page
    questions: list[ProductQuestion] | None = None  # product Q&A (worlds whose product pages have it)
    stock_alerts: list[StockAlert] | None = None  # back-in-stock emails asked for (worlds that offer them)

    # Lookups used by the routes; linear scans are fine at this size and keep no cached copies.
    def gift_balance_cents(self) -> int:
        """What the account's redeemed gift cards have left to spend."""
        return sum(c.amount_cents for c in self.gift_cards or [] if c.redeemed_at) - (self.gift_spent_cents or 0)

    def product(self, product_id: str) -> Product | None:
        return find(self.products, product_id)

    def category(self, slug: str) -> Category | None:
        return find(self.categories, slug, key="slug")

    def address(self, address_id: str) -> Address | None:
        return find(self.addresses, address_id)

    def cart_item(self, item_id: str) -> CartItem | None:
        return find(self.cart_items, item_id)

    def order(self, order_id: str) -> Order | None:
        return find(self.orders, order_id)

    def shipment_of(self, order_id: str) -> Shipment | None:
        """The parcel of an order on its way (None: none, or no parcel tracking in this world)."""
        return next((s for s in self.shipments or [] if s.order_id == order_id), None)

    def message(self, message_id: str) -> Message | None:
        return find(self.messages, message_id)

    def default_address(self) -> Address | None:
        return next((a for a in self.addresses if a.is_default), None)

    def cart_count(self) -> int:
        return sum(i.quantity for i in self.cart_items)

    def cart_subtotal_cents(self) -> int:
        return sum(i.quantity * i.unit_price_cents for i in self.cart_items)

    def category_names(self) -> dict[str, str]:
        return {c.slug: c.name for c in self.categories}

    def offers(self, name: str) -> list[Product]:
        """Every listing of the product called `name` (one per seller), cheapest first; ties by seller."""
        return sorted((p for p in self.products if p.name == name), key=lambda p: (p.price_cents, p.seller, p.id))


SHIPPING_CENTS: dict[str, int] = {"standard": 0, "express": 1200}
# The longest a shipping speed takes (the checkout promises "Standard (5–7 days)", "Express (1–2 days)").
SHIPPING_DAYS: dict[str, int] = {"standard": 7, "express": 2}


def estimated_delivery(order: Order) -> date:
    """The day an order is due: placed day plus its shipping speed's longest time."""
    placed = date.fromisoformat(order.placed_at[:10])
    return placed + timedelta(days=SHIPPING_DAYS.get(order.shipping, SHIPPING_DAYS["standard"]))

MAX_QUANTITY = 10
PAGE_SIZE = 24          # products per page of the home listing
SEARCH_PAGE_SIZE = 12   # results per page of a search

# ---- request bodies ------------------------------------------------------------------------

Text = Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=1, max_length=200)]
UPLOAD_MAX_BYTES = 512 * 1024  # a photo the store takes: larger ones are refused (413), as stores cap uploads
UPLOAD_MAX_BASE64 = (UPLOAD_MAX_BYTES + 2) // 3 * 4
Quantity = Annotated[StrictInt, Field(ge=1, le=MAX_QUANTITY)]


class AddToCart(_Body):
    product_id: Text
    quantity: Quantity = 1


class UpdateCartItem(_Body):
    quantity: Quantity


class GiftOptions(_Body):
    message: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, max_length=300)] = ""
    wrap: StrictBool = False


class PlaceOrder(_Body):
    address_id: Text
    shipping: Literal["standard", "express"]
    coupon: Text | None = None  # a code from the coupon wallet (worlds with coupons only)
    gift: GiftOptions | None = None  # a gift's note and wrap (worlds whose store offers gift options only)


class NewReview(_Body):
    rating: Annotated[StrictInt, Field(ge=1, le=5)]
    title: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=1, max_length=120)]
    body: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=1, max_length=2000)]


class SaveForLater(_Body):
    product_id: Text


class ReturnItem(_Body):
    product_id: Text
    reason: Text
    photo: Text | None = None  # an upload's id (POST /api/uploads)


class NewQuestion(_Body):
    text: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=5, max_length=500)]


class RedeemGiftCard(_Body):
    code: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=1, max_length=40)]


class NewUpload(_Body):
    name: Annotated[str, StringConstraints(strict=True, strip_whitespace=True, min_length=1, max_length=120)]
    content_type: Literal["image/png", "image/jpeg"]
    data: Annotated[str, StringConstraints(strict=True, min_length=1, max_length=UPLOAD_MAX_BASE64)]  # base64


class NewReturn(_Body):
    items: Annotated[list[ReturnItem], Field(min_length=1, max_length=20)]
    refund_method: Literal["original", "store_credit"]


class NewAddress(_Body):
    full_name: Text
    street: Text
    city: Text
    postal_code: Annotated[
        str, StringConstraints(strict=True, strip_whitespace=True, min_length=1, max_length=20)
    ]
    country: Text
    make_default: StrictBool = False


# What every shop handler takes: the request's episode, its state typed (`sites.kit.deps`).
ShopEpisode = EpisodeOf[ShopState]
