"""Trap 8 (binding `draft`): correct a saved draft, then send it. The draft quotes a caterer's total
with two digits swapped; the quote itself states the right one. Two unrelated drafts stay."""

from dataclasses import dataclass
from typing import Any

from sites.kit.dates import WEEKDAY_NAMES
from sites.mail import content as C
from sites.mail.models import Attachment
from sites.mail.world.builder import Builder
from sites.mail.world.mailbox import Finished, Pending
from sites.mail.world.people import Person, service
from sites.mail.world.text import day_text, money


@dataclass
class DraftTrap:
    draft: Pending
    request: Pending     # the message the draft replies to
    quote: Pending       # the caterer's quote, stating the right value
    right: str
    wrong: str
    caterer: str
    finance: Person      # who asked, and who the draft is to
    others: list[Pending]

    def bindings(self, world: Finished) -> dict[str, Any]:
        return {
            "id": world.id_of(self.draft), "to": self.finance.email, "to_name": self.finance.name,
            "subject": self.draft.subject, "wrong_value": self.wrong, "right_value": self.right,
            "source_id": world.id_of(self.quote), "request_id": world.id_of(self.request), "caterer": self.caterer,
            "other_draft_ids": sorted(world.id_of(m) for m in self.others),
        }


def plant(builder: Builder) -> DraftTrap:
    rng, box, user = builder.rng, builder.box, builder.user
    caterer_name, caterer_domain = rng.choice(C.CATERERS)
    caterer = service(caterer_name, f"events@{caterer_domain}")
    builder.contact_people.append(caterer)
    dollars = rng.randint(1_800, 4_800)
    digits = str(dollars)
    swaps = [i for i in (1, 2) if digits[i] != digits[i + 1]]
    while not swaps:
        dollars = rng.randint(1_800, 4_800)
        digits = str(dollars)
        swaps = [i for i in (1, 2) if digits[i] != digits[i + 1]]
    i = rng.choice(swaps)
    wrong_digits = digits[:i] + digits[i + 1] + digits[i] + digits[i + 2:]
    right, wrong = money(dollars * 100), money(int(wrong_digits) * 100)
    people = rng.randint(30, 70)
    event_day = builder.future_workday(8, 20)
    lunch = dollars * 100 * 64 // 100
    drinks = dollars * 100 * 14 // 100
    fees = dollars * 100 - lunch - drinks
    quote_no = f"Q-{rng.randint(1000, 9999)}"
    quote = box.add(
        box.at(rng.randint(4, 8)), "inbox", caterer, [user.email],
        f"Your quote {quote_no}: all-hands lunch on {day_text(event_day)}",
        f"Hi {user.first},\n\nThank you for choosing {caterer_name} for your all-hands lunch on "
        f"{day_text(event_day)}. Here is your final quote for {people} guests:\n\nBuffet lunch: "
        f"{money(lunch)}\nDrinks and coffee: {money(drinks)}\nService, setup and clearing: "
        f"{money(fees)}\n\nTotal: {right} (tax included)\n\nThe quote is valid for 14 days and is "
        f"attached as a PDF. Reply to this email to confirm.\n\nWarm regards,\nThe {caterer_name} events team",
        read=True, attachments=[Attachment(name=f"{caterer_name.replace(' ', '-')}-{quote_no}.pdf",
                                           size_bytes=rng.randint(50_000, 180_000),
                                           content_type="application/pdf")],
    )
    finance = builder.cast.finance
    thread = box.new_thread()
    request = box.add(
        box.at(rng.randint(2, 3)), "inbox", finance, [user.email], "PO for the all-hands catering",
        f"Hi {user.first},\n\nTo raise the purchase order for the all-hands lunch I need the final "
        f"total from {caterer_name}. Could you send it over when you have it?\n\nThanks,\n{finance.first}",
        thread=thread, read=True,
    )
    deadline = WEEKDAY_NAMES[builder.future_workday(2, 5).weekday()]
    draft = box.add(
        rng.randint(120, 22 * 60), "drafts", user, [finance.email], "Re: PO for the all-hands catering",
        f"Hi {finance.first},\n\nThe final total from {caterer_name} is {wrong}, tax included, for {people} "
        f"guests. The quote is valid for 14 days, so we'd need the PO by {deadline}.\n\nThanks",
        thread=thread, reply_to=request, newer_than=request.minutes, read=True,
    )
    # Two unrelated drafts: a half-written reply to a friend and notes with no recipient yet.
    friend = rng.choice(builder.cast.friends)
    others = [
        box.add(box.at(rng.randint(1, 9)), "drafts", user, [friend.email], "Catching up",
                f"Hi {friend.first},\n\nSorry it's taken me so long to reply! Things have been", read=True),
        box.add(box.at(rng.randint(3, 15)), "drafts", user, [],
                f"Notes for Q{(builder.today.month - 1) // 3 + 1} planning",
                "- hiring plan\n- support coverage at weekends\n- move the analytics work?", read=True),
    ]
    return DraftTrap(draft=draft, request=request, quote=quote, right=right, wrong=wrong, caterer=caterer_name,
                     finance=finance, others=others)
