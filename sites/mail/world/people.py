"""The people of a mail world: the user, their colleagues, clients, friends and family, and the
roles the traps give some of them."""

from dataclasses import dataclass
from random import Random

from sites.mail import content as C
from sites.mail.world.text import slug


@dataclass
class Person:
    first: str
    last: str
    email: str
    company: str
    kind: str  # colleague | client | personal | family | service | user

    @property
    def name(self) -> str:
        return f"{self.first} {self.last}".strip()


def colleague(first: str, last: str) -> Person:
    return Person(first, last, f"{slug(first)}.{slug(last)}@{C.COMPANY_DOMAIN}", C.COMPANY, "colleague")


def client(rng: Random, first: str, last: str, company: tuple[str, str]) -> Person:
    local = rng.choice((f"{slug(first)}.{slug(last)}", f"{slug(first)[0]}{slug(last)}", slug(first)))
    return Person(first, last, f"{local}@{company[1]}", company[0], "client")


def personal(rng: Random, first: str, last: str, kind: str = "personal") -> Person:
    local = rng.choice((f"{slug(first)}.{slug(last)}", f"{slug(first)}{slug(last)[0]}{rng.randint(10, 99)}",
                        f"{slug(first)}{slug(last)}"))
    return Person(first, last, f"{local}@{rng.choice(C.PERSONAL_DOMAINS)}", "", kind)


def service(name: str, email: str, company: str | None = None) -> Person:
    """A sender that is an organisation, not a person (vendors, newsletters, notifiers)."""
    return Person(name, "", email, name if company is None else company, "service")


@dataclass
class Cast:
    user: Person
    user_title: str
    client_companies: list[tuple[str, str]]
    # The namesakes: one shared first name, different surnames and companies.
    person: Person
    namesake: Person
    colleagues: list[Person]
    clients: list[Person]
    friends: list[Person]
    family: list[Person]
    spare_firsts: list[str]   # first names nobody has, for people only mentioned in passing
    # Roles in the traps (never the namesakes, so their messages stay exactly as designed).
    finance: Person
    requester: Person
    deputy: Person
    it_desk: Person
    bookkeeper: Person

    def filler_people(self, kind: str) -> list[Person]:
        """Who may write ordinary mail of a kind: anyone but the namesakes."""
        pool = {"colleague": self.colleagues, "client": self.clients,
                "personal": self.friends + self.family}[kind]
        return [p for p in pool if p.first != self.person.first]


def cast_people(rng: Random) -> Cast:
    firsts = rng.sample(C.FIRST_NAMES, 26)
    lasts = rng.sample(C.LAST_NAMES, 26)
    take = iter(range(26))

    def name() -> tuple[str, str]:
        i = next(take)
        return firsts[i], lasts[i]

    user_first, user_last = name()
    user = Person(user_first, user_last, f"{slug(user_first)}.{slug(user_last)}@{C.COMPANY_DOMAIN}", C.COMPANY,
                  "user")
    user_title = rng.choice(C.USER_TITLES)
    client_companies = list(rng.sample(C.CLIENTS, 6))

    shared, last_a = name()
    _, last_b = name()
    target_kind = rng.choice(("colleague", "client"))
    other_kind = rng.choice(("personal", "client"))
    if target_kind == "colleague":
        person = colleague(shared, last_a)
    else:
        person = client(rng, shared, last_a, client_companies[0])
    if other_kind == "client":
        namesake = client(rng, shared, last_b, client_companies[1])
    else:
        namesake = personal(rng, shared, last_b)

    colleagues = [colleague(*name()) for _ in range(8)]
    clients = [client(rng, *name(), company) for company in client_companies[1:]]
    friends = [personal(rng, *name()) for _ in range(3)]
    sibling_first, _ = name()
    parent_first, _ = name()
    family = [personal(rng, sibling_first, user.last, "family"), personal(rng, parent_first, user.last, "family")]
    spare_firsts = [firsts[i] for i in take]
    if person.kind == "colleague":
        colleagues.append(person)
    else:
        clients.append(person)
    if namesake.kind == "client":
        clients.append(namesake)
    else:
        friends.append(namesake)
    plain = [c for c in colleagues if c.first != shared]
    finance, requester, deputy = rng.sample(plain, 3)
    it_desk = Person("Northwind", "IT", f"it@{C.COMPANY_DOMAIN}", C.COMPANY, "service")
    bk = rng.choice(C.BOOKKEEPERS)
    bookkeeper = Person(bk[0].split()[0], bk[0].split()[1], bk[1], bk[2], "service")
    return Cast(user=user, user_title=user_title, client_companies=client_companies, person=person,
                namesake=namesake, colleagues=colleagues, clients=clients, friends=friends, family=family,
                spare_firsts=spare_firsts, finance=finance, requester=requester, deputy=deputy, it_desk=it_desk,
                bookkeeper=bookkeeper)


def signature_of(rng: Random, cast: Cast) -> str:
    return (f"{cast.user.name}\n{cast.user_title} · {C.COMPANY}\n"
            f"+1 (555) 01{rng.randint(0, 9)}-{rng.randint(1000, 9999)}")
