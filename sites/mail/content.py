"""The words of the mail world: people, companies, senders and message scripts.

Texts are `str.format_map` templates; the generator fills the slots (see `SLOTS`). A thread
script is a subject and its turns in order, each written by "them" (the correspondent) or
"me" (the user). Nothing here is random: the generator draws from these tables with the
episode's RNG.
"""

# Slots every script may use; the generator provides all of them for every unit.
SLOTS = (
    "me", "me_full", "them", "them_full", "company", "colleague", "day", "day2", "date", "past_day",
    "time", "n", "num", "pct", "amount", "small_amount", "fare", "project", "project2", "role", "client",
    "month", "prev_month", "q", "q2", "city", "place", "book", "newbie",
)

FIRST_NAMES = (
    "Adaeze", "Alina", "Amara", "Anders", "Arjun", "Beatriz", "Bram", "Callum", "Camille", "Dario", "Delphine",
    "Eamon", "Elif", "Esme", "Farah", "Felix", "Gideon", "Greta", "Hamid", "Hana", "Idris", "Ines", "Isla",
    "Jonah", "Josefin", "Kai", "Keira", "Lars", "Leila", "Lorenzo", "Lucia", "Malik", "Mara", "Mateo", "Maya",
    "Mei", "Nadia", "Nico", "Nora", "Oren", "Orla", "Pavel", "Petra", "Quinn", "Rafael", "Rhea", "Rowan",
    "Saoirse", "Silas", "Sofia", "Soren", "Tamsin", "Tariq", "Thea", "Tobias", "Uma", "Vera", "Wren", "Yusuf",
    "Zara",
)
LAST_NAMES = (
    "Abbott", "Achterberg", "Adeyemi", "Bancroft", "Bergstrom", "Calloway", "Castellano", "Chen", "Dimitrov",
    "Donnelly", "Ekwueme", "Falk", "Fontaine", "Gallagher", "Haddad", "Halloran", "Ibsen", "Iwasaki", "Jansen",
    "Kapoor", "Kowalczyk", "Lindqvist", "Lomax", "Marchetti", "Moreau", "Nakagawa", "Nyberg", "Okafor",
    "Oyelaran", "Pellegrini", "Quintero", "Ramsey", "Rasmussen", "Sandoval", "Sato", "Sheridan", "Sorensen",
    "Takahashi", "Thornbury", "Umarov", "Valdez", "Vasquez", "Whitlock", "Winslow", "Yilmaz", "Zielinski",
)
USER_TITLES = (
    "Product Manager", "Operations Lead", "Account Director", "Engineering Manager", "Programme Manager",
    "Head of Customer Success",
)
COLLEAGUE_TITLES = (
    "Data Analyst", "Senior Engineer", "Designer", "Customer Success Manager", "Marketing Lead", "Recruiter",
    "Engineering Lead", "Sales Director", "Legal Counsel", "QA Lead",
)

COMPANY = "Northwind"
COMPANY_DOMAIN = "northwind.test"
# Look-alikes of the company's own domain (the phishing sender).
COMPANY_LOOKALIKES = ("northwind-support.test", "northwlnd.test", "northwind-helpdesk.test", "nothwind.test",
                      "northwind-it.test")

# Client companies: (name, domain)
CLIENTS = (
    ("Harbor Analytics", "harboranalytics.test"), ("Bluefin Logistics", "bluefinlogistics.test"),
    ("Oakridge Capital", "oakridgecapital.test"), ("Tidewater Design", "tidewaterdesign.test"),
    ("Summit Health Partners", "summithealth.test"), ("Copperleaf Foods", "copperleaffoods.test"),
    ("Meridian Freight", "meridianfreight.test"), ("Lanternfish Games", "lanternfish.test"),
)
PERSONAL_DOMAINS = ("fastpost.test", "inboxly.test", "letterbox.test", "owlmail.test")

# Vendors that invoice the user every month:
# (name, domain, billing local part, invoice prefix, service line, (min, max) cents, look-alike domains)
VENDORS = (
    ("Cloudnest Hosting", "cloudnest.test", "billing", "CN", "Managed cloud hosting – Business plan (3 instances)",
     (18_000, 92_000), ("cloudnest-billing.test", "cloud-nest.test", "cloudnests.test")),
    ("Brightline Energy", "brightlineenergy.test", "accounts", "BLE", "Electricity supply – office, 4th floor",
     (41_000, 168_000), ("brightline-energy.test", "brightlineenergy-billing.test")),
    ("Papercut Office Supply", "papercut.test", "invoices", "PC", "Office supplies – monthly standing order",
     (9_000, 46_000), ("papercut-invoices.test", "paper-cut.test")),
    ("Stackline Software", "stackline.test", "billing", "SL", "Stackline Team plan – 24 seats",
     (28_800, 57_600), ("stackline-billing.test", "stack1ine.test")),
    ("Greenleaf Facilities", "greenleaffacilities.test", "accounts", "GL", "Office cleaning – weekly service",
     (62_000, 118_000), ("greenleaf-facilities.test", "greenleaffacilities-pay.test")),
    ("Swiftpath Couriers", "swiftpath.test", "billing", "SP", "Courier deliveries – monthly account",
     (12_000, 74_000), ("swiftpath-billing.test", "swlftpath.test")),
)

# Bookkeepers the user forwards invoices to: (name, email, company)
BOOKKEEPERS = (
    ("Olive Grant", "olive@grantbookkeeping.test", "Grant & Co Bookkeeping"),
    ("Rupert Vance", "rupert@ledgerwise.test", "Ledgerwise Accounting"),
    ("Marisol Pike", "ap@pikeandfinch.test", "Pike & Finch Accountants"),
)

LABELS = (
    ("Work", "#1a73e8"), ("Finance", "#188038"), ("Travel", "#e37400"), ("Family", "#a142f4"),
    ("Receipts", "#5f6368"), ("Newsletters", "#d93025"),
)

PROJECTS = ("Atlas", "Beacon", "Cobalt", "Driftwood", "Evergreen", "Foxglove", "Granite", "Halcyon", "Juniper",
            "Keystone")
ROLES = ("Senior Backend Engineer", "Data Analyst", "Product Designer", "Customer Success Manager",
         "QA Engineer", "Technical Writer")
CITIES = ("Lisbon", "Copenhagen", "Edinburgh", "Barcelona", "Vienna", "Montréal", "Dublin", "Porto")
PLACES = ("The Copper Pot", "Luca's", "Fern & Fig", "the Harbour Café", "Noodle Bar on Quay Street", "Basil House")
BOOKS = ("The Salt Road", "Patterns of Rain", "The Lantern Keeper", "Quiet Engines", "Notes from the Orchard",
         "The Long Meadow")

# ---- thread scripts ------------------------------------------------------------------------------
# (subject, ((author, text), ...)); a unit uses the first k turns.

Script = tuple[str, tuple[tuple[str, str], ...]]

WORK_THREADS: tuple[Script, ...] = (
    ("Q{q} roadmap draft", (
        ("them", "Hi {me},\n\nI've put the first draft of the Q{q} roadmap in the shared drive under Planning > "
                 "Q{q}. The big open question is whether we take on the {project} migration this quarter or push "
                 "it to Q{q2}.\n\nCould you look at the sequencing on slide 4 before {day}? I'd like to send it "
                 "to the leadership group by the end of the week.\n\nThanks,\n{them}"),
        ("me", "Thanks {them}, I had a quick read. I think {project} has to stay in Q{q}: the renewal with "
               "{client} depends on it. I've left comments on slides 4 and 7.\n\nHappy to talk it through on "
               "{day} if that's easier."),
        ("them", "Makes sense. I've moved the analytics work to Q{q2} and kept {project} in. The updated version "
                 "is in the same folder.\n\n{them}"),
    )),
    ("Interview panel for the {role} role", (
        ("them", "Hi {me},\n\nWe have {n} candidates through to the final round for the {role} role. Would you "
                 "be able to sit on the panel on {date}? It would be two 45-minute slots, in the morning.\n\n"
                 "I'll send the scorecards and CVs the day before.\n\nBest,\n{them}"),
        ("me", "Hi {them},\n\nYes, count me in for {date}. Mornings work. Could you put me on the system design "
               "part? {colleague} is better placed for the culture conversation.\n\nThanks"),
        ("them", "Perfect, done. Calendar invites are on their way.\n\n{them}"),
    )),
    ("Notes from today's design review", (
        ("them", "Hi all,\n\nThanks for a good session today. Quick summary:\n\n- We're going with option B for "
                 "the onboarding flow.\n- The empty states need another pass before usability testing.\n- "
                 "{colleague} will check what the {pct}% drop-off on step 3 is about.\n\nNext review is "
                 "{day} at {time}. Shout if I missed anything.\n\n{them}"),
        ("me", "Thanks {them}, that matches my notes. One addition: we agreed to keep the old flow behind a flag "
               "for two weeks after launch, in case support sees a spike."),
    )),
    ("{client} escalation – delayed shipments", (
        ("them", "Hi {me},\n\nHeads up: {client} raised a formal complaint this morning about the delayed "
                 "shipments. {n} of their orders missed the delivery window last week.\n\nI've asked operations "
                 "for a timeline. Can you join a call with their account lead on {day}? They want to hear from "
                 "someone senior.\n\n{them}"),
        ("me", "Thanks for flagging. Yes, {day} works, any time after 11. Can you pull together the order "
               "numbers and the root cause we have so far? I'd rather go in with facts than apologies."),
        ("them", "Will do. I'll have a one-pager in your inbox by tomorrow midday.\n\n{them}"),
        ("them", "One-pager is attached. Short version: a carrier changed its cut-off time and nobody updated "
                 "our booking rules. Fixed as of yesterday.\n\n{them}"),
    )),
    ("Budget sign-off for {project}", (
        ("them", "Hi {me},\n\nFinance needs the {project} budget signed off by {date} to release the Q{q} "
                 "funds. The total is {amount}, which is {pct}% under what we asked for in the spring.\n\nThe "
                 "breakdown is in the sheet I shared last week. Could you approve it in the finance portal?\n\n"
                 "Thanks,\n{them}"),
        ("me", "Approved, thanks {them}. Good to see it come in under."),
    )),
    ("Moving our 1:1 this week", (
        ("them", "Hi {me},\n\nWould you mind if we moved our 1:1 from {past_day} to {day}? I have a dentist "
                 "appointment I couldn't move.\n\nSame time works for me if it works for you.\n\n{them}"),
        ("me", "No problem at all, {day} at the same time is fine. I've updated the invite."),
    )),
    ("On-call handover", (
        ("them", "Hi {me},\n\nHanding over on-call for the week. Nothing on fire, but two things to watch:\n\n"
                 "1. The nightly export job has been slow since the {project} deploy. It finished, just late.\n"
                 "2. {client} asked for a status page update if the API latency alert fires again.\n\nRunbook "
                 "links are in the team channel. Good luck!\n\n{them}"),
    )),
    ("Customer survey results are in", (
        ("them", "Hi {me},\n\nThe customer survey closed yesterday with {num} responses. Headlines:\n\n- "
                 "Satisfaction is up {pct} points on last quarter.\n- Reporting is still the most requested "
                 "feature.\n- A handful of comments about slow support replies at weekends.\n\nFull deck "
                 "attached. I'm presenting it at the all-hands on {day}.\n\n{them}"),
        ("me", "Great work, {them}. Could you add a slide on the weekend support comments? I'd like to raise it "
               "with {colleague} before the all-hands."),
        ("them", "Added as slide 9. I also split the comments by plan tier, which makes the pattern clearer.\n\n"
                 "{them}"),
    )),
    ("Team lunch on {day}?", (
        ("them", "Hi {me},\n\nA few of us are going to {place} on {day} to celebrate the {project} launch. "
                 "12:30, nothing fancy. Want to join?\n\n{them}"),
        ("me", "Count me in! Thanks for organising."),
        ("them", "Great, I've booked a table for {n}.\n\n{them}"),
    )),
    ("Access to the analytics dashboard", (
        ("them", "Hi {me},\n\nCould you approve my access request for the analytics dashboard? I need it to "
                 "finish the {project} usage report. The request is in the IT portal under your name.\n\n"
                 "Thanks!\n{them}"),
        ("me", "Done. It can take an hour or so to sync."),
        ("them", "It's working now, thanks.\n\n{them}"),
    )),
    ("Quarterly business review deck", (
        ("them", "Hi {me},\n\nHere's the first cut of the QBR deck for {client}. I've left placeholders for "
                 "the usage numbers. The data team will have them on {day}.\n\nCould you write the "
                 "'looking ahead' section? Two or three bullets is plenty.\n\nCheers,\n{them}"),
        ("me", "Sure, I'll have it done by {day}. Can we lead with the support response times? They're our best "
               "story this quarter."),
    )),
    ("Welcome {newbie} to the team", (
        ("them", "Hi everyone,\n\nPlease join me in welcoming {newbie}, who starts on {day} as our new {role}. "
                 "{newbie} joins us from {client} and will be working closely with {me} on {project}.\n\n"
                 "Do stop by and say hello.\n\n{them}"),
        ("me", "Welcome aboard, {newbie}! Looking forward to working together. I'll set up an intro call for "
               "your first week."),
    )),
    ("Contract redlines from legal", (
        ("them", "Hi {me},\n\nLegal sent back the redlines on the {client} master agreement. Most of it is "
                 "wording, but clause 11 (liability cap) changed from 12 to {n} months of fees.\n\nCan you "
                 "check whether that's acceptable commercially before I send it back?\n\n{them}"),
        ("me", "{n} months is fine for a deal this size. Please go ahead, and copy me when you send it."),
        ("them", "Sent, you're copied. They expect to sign by {date}.\n\n{them}"),
    )),
    ("Expense report question", (
        ("them", "Hi {me},\n\nQuick one: your {prev_month} expense report has a {amount} line marked 'client "
                 "dinner' without a receipt. Could you upload it when you get a moment? I can't close the month "
                 "without it.\n\nThanks,\n{them}"),
        ("me", "Sorry about that. Uploaded just now."),
        ("them", "Got it, all approved.\n\n{them}"),
    )),
    ("Release checklist for {project} {n}.0", (
        ("them", "Hi {me},\n\nThe release checklist for {project} {n}.0 is ready. Code freeze is {day} at "
                 "noon, and we'd like to ship the following {day2}.\n\nOpen items: the migration guide, sign-off "
                 "from support, and the changelog. Could you own the support sign-off?\n\n{them}"),
        ("me", "Yes, I'll get support's sign-off. I'll book 30 minutes with {colleague} this week to walk "
               "through the changes."),
    )),
)

CLIENT_THREADS: tuple[Script, ...] = (
    ("Follow-up from our call", (
        ("them", "Hi {me},\n\nThanks for your time earlier. As promised, here are the three points we'd like "
                 "to see in the proposal:\n\n1. A phased rollout, starting with our {city} office.\n2. Weekly "
                 "reporting for the first two months.\n3. A named contact on your side for escalations.\n\n"
                 "Could you send something over by {date}?\n\nKind regards,\n{them_full}\n{company}"),
        ("me", "Hi {them},\n\nThanks, that's clear. I'll have a proposal to you by {date}, and I'll be your "
               "named contact. {colleague} will cover when I'm away.\n\nBest"),
        ("them", "Perfect, thank you {me}. Looking forward to it.\n\n{them}"),
    )),
    ("Renewal proposal", (
        ("them", "Hello {me},\n\nOur renewal comes up next quarter. Before we start the formal process, could "
                 "you share pricing for {num} seats on a two-year term? Procurement is asking for options.\n\n"
                 "Many thanks,\n{them_full}\n{company}"),
        ("me", "Hi {them},\n\nHappy to. I'll send two options, a one-year and a two-year term, by {day}. The "
               "two-year option will include a {pct}% discount.\n\nBest"),
    )),
    ("Pilot timeline", (
        ("them", "Hi {me},\n\nOur leadership team approved the pilot. We'd like to start on {date} if that "
                 "works on your side. We'll have {n} team leads involved.\n\nWhat do you need from us to get "
                 "going?\n\nBest,\n{them}\n{company}"),
        ("me", "Great news, {them}! {date} works. We'll need a list of the pilot users and a 30-minute "
               "kickoff slot in the first week. I'll send an invite.\n\nBest"),
        ("them", "List attached. Any morning in the first week is fine for the kickoff.\n\n{them}"),
    )),
    ("Site visit on {date}", (
        ("them", "Hi {me},\n\nJust confirming the visit to our {city} office on {date}. Our reception opens at "
                 "8:30; ask for me at the desk and I'll come down. Parking is available in the building.\n\n"
                 "See you then,\n{them_full}\n{company}"),
        ("me", "Thanks {them}, confirmed. {colleague} will be joining me."),
    )),
    ("Intro: {colleague} from our data team", (
        ("me", "Hi {them},\n\nAs discussed, I'd like to introduce {colleague}, who leads our data team. "
               "{colleague} can help with the reporting questions your analysts raised.\n\nI'll let you two take "
               "it from here.\n\nBest"),
        ("them", "Thanks {me}! Lovely to e-meet you, {colleague}. Could we find 30 minutes next week?\n\n{them}"),
    )),
    ("Invoice query", (
        ("them", "Hi {me},\n\nOur accounts team noticed the {prev_month} invoice lists {num} seats, but we "
                 "reduced to {n} fewer at the start of the month. Could you take a look?\n\nThanks,\n{them}\n"
                 "{company}"),
        ("me", "Hi {them},\n\nYou're right, the change didn't reach billing in time. I've asked for a credit "
               "note, which should arrive within a week. Sorry for the trouble.\n\nBest"),
        ("them", "Thank you for sorting it so quickly.\n\n{them}"),
    )),
    ("Workshop agenda", (
        ("them", "Hi {me},\n\nHere's the draft agenda for the workshop on {date}:\n\n09:30 Welcome and goals\n"
                 "10:00 Current process walkthrough\n11:30 Break\n11:45 Design exercise\n13:00 Lunch\n\nDoes "
                 "that look right to you? Happy to adjust.\n\n{them}\n{company}"),
        ("me", "Looks good. Could we swap the break and the walkthrough? The walkthrough tends to run long."),
    )),
)

PERSONAL_THREADS: tuple[Script, ...] = (
    ("Sunday lunch?", (
        ("them", "Hi {me}!\n\nAre you free for lunch on Sunday? I was thinking {place} around 1. It's been "
                 "ages.\n\nxx\n{them}"),
        ("me", "Yes please! 1 o'clock is perfect. See you there."),
        ("them", "Lovely, I've booked. Can't wait to catch up.\n\n{them}"),
    )),
    ("Photos from the weekend", (
        ("them", "Hi {me},\n\nHere are a few photos from Saturday. The light by the lake was amazing. More on "
                 "the shared album when I get a minute.\n\n{them}"),
        ("me", "These are gorgeous, thank you! The one by the boathouse needs a frame."),
    )),
    ("Present ideas for Mum's birthday", (
        ("them", "Hi {me},\n\nMum's birthday is on {date}. Any ideas? I was thinking we could go halves on "
                 "a weekend away, or that pottery class she keeps mentioning.\n\nLet me know,\n{them}"),
        ("me", "The pottery class! She's mentioned it at least {n} times. I'm happy to split it."),
        ("them", "Done, I've booked it. I'll send you the details.\n\n{them}"),
    )),
    ("Book club: next pick", (
        ("them", "Hi all,\n\nNext book club is at my place on {day}. We voted for {book}, so start reading!\n\n"
                 "Bring snacks if you can.\n\n{them}"),
        ("me", "Already started it. See you {day}!"),
    )),
    ("Running on Saturday?", (
        ("them", "Morning {me},\n\nFancy the riverside loop on Saturday? {n} km at an easy pace, then "
                 "coffee.\n\n{them}"),
        ("me", "I'm in. 8 am at the bridge?"),
        ("them", "8 at the bridge it is.\n\n{them}"),
    )),
    ("Moving day", (
        ("them", "Hi {me},\n\nWe finally have a date: we move on {date}! Any chance you could help for a few "
                 "hours in the morning? Pizza and eternal gratitude guaranteed.\n\n{them}"),
        ("me", "Of course. I'll bring the big boxes from my storage unit."),
    )),
    ("That recipe", (
        ("them", "Hi {me},\n\nAs promised, the lemon and thyme chicken recipe. The secret is to take it out "
                 "{n} minutes before you think it's done and let it rest.\n\nEnjoy!\n{them}"),
    )),
)

# Notifications and receipts: (sender name, sender email, label name or "", subjects, bodies)
Notifier = tuple[str, str, str, tuple[str, ...], tuple[str, ...]]

NOTIFIERS: dict[str, Notifier] = {
    "projecthub": (
        "ProjectHub", "notifications@projecthub.test", "Work",
        ("[ProjectHub] {colleague} assigned you: Review the {project} rollout plan",
         "[ProjectHub] New comment on “{project} launch checklist”",
         "[ProjectHub] Weekly summary for {project}",
         "[ProjectHub] {colleague} mentioned you in “Q{q} planning”",
         "[ProjectHub] Task due {day}: Update the {project} status page"),
        ("Hi {me},\n\n{colleague} updated a task you follow in {project}.\n\n“Please review by {day}; the "
         "rollout plan depends on the support sign-off.”\n\nOpen the task in ProjectHub to reply.\n\n—\nYou're "
         "receiving this because you follow {project}. Manage notifications in your ProjectHub settings.",
         "Hi {me},\n\nHere's what happened in {project} this week:\n\n- {n} tasks completed\n- {num} comments\n"
         "- 2 tasks overdue\n\nSee the full summary in ProjectHub.\n\n—\nProjectHub · notification settings"),
    ),
    "calendar": (
        "Northwind Calendar", "calendar@northwind.test", "",
        ("Invitation: {project} sync @ {day} {time}",
         "Updated invitation: Design review @ {day} {time}",
         "Invitation: Coffee with {colleague} @ {day} {time}"),
        ("{colleague} has invited you to an event.\n\nWhen: {day}, {time} (45 minutes)\nWhere: Meeting room "
         "“Lighthouse”, 3rd floor\nWho: {colleague}, {me_full} and {n} others\n\nYes / Maybe / No\n\n—\n"
         "Invitation from Northwind Calendar",),
    ),
    "people": (
        "Northwind People Team", "people@northwind.test", "",
        ("Reminder: submit your {prev_month} expenses by {date}",
         "Open enrolment for benefits closes {date}",
         "Your payslip for {prev_month} is available"),
        ("Hi {me},\n\nA friendly reminder from the People team: the deadline is {date}.\n\nYou can do this in "
         "the employee portal in a few minutes. If anything is unclear, reply to this email and we'll help.\n\n"
         "Thanks,\nThe People Team",),
    ),
    "cartwheel": (
        "Cartwheel", "orders@shop.test", "Receipts",
        ("Your Cartwheel order #{num}{n} has shipped",
         "Order confirmation: Cartwheel order #{num}{n}",
         "Your Cartwheel order #{num}{n} was delivered"),
        ("Hi {me},\n\nThanks for shopping with Cartwheel.\n\nOrder #{num}{n}\nItems: {n}\nOrder total: "
         "{small_amount}\nDelivery: Standard (free)\n\nYou can track or return items from Your orders on "
         "shop.test.\n\nCartwheel · Free returns within 30 days",),
    ),
    "zipcab": (
        "Zipcab", "receipts@zipcab.test", "Receipts",
        ("Your {past_day} evening trip with Zipcab", "Your {past_day} morning trip with Zipcab"),
        ("Thanks for riding, {me}.\n\nTotal: {fare}\nDistance: {n}.4 km\nDuration: {n}{n} min\n\nRate "
         "your driver in the app.\n\nZipcab receipts",),
    ),
    "bank": (
        "Harbor Bank", "alerts@harborbank.test", "Finance",
        ("Your {prev_month} statement is ready", "Payment received: {amount}",
         "A new payee was added to your account"),
        ("Hello {me_full},\n\nYour account has an update. Sign in to online banking to see the details.\n\n"
         "Harbor Bank will never ask for your password or one-time codes by email.\n\n—\nHarbor Bank",),
    ),
    "forum": (
        "Threadline", "noreply@forum.test", "",
        ("New reply to your post “Best budget mechanical keyboard?”",
         "{colleague} and {n} others liked your comment",
         "Your weekly Threadline digest"),
        ("Hi {me},\n\nThere's new activity on Threadline since your last visit.\n\nSee it on forum.test.\n\n"
         "—\nThreadline · Turn off these emails in your settings",),
    ),
    "clinic": (
        "Maple Grove Clinic", "appointments@clinic.test", "",
        ("Appointment reminder: {date} at {time}", "Your test results are ready to view"),
        ("Dear {me_full},\n\nThis is a reminder from Maple Grove Clinic. Please sign in to the patient portal on "
         "clinic.test for details. If you need to reschedule, please give us 24 hours' notice.\n\nMaple Grove "
         "Clinic",),
    ),
    "learn": (
        "Learnwell", "no-reply@learn.test", "",
        ("New grade posted in “Data Storytelling”", "Week {n} of “Negotiation Basics” is now open"),
        ("Hi {me},\n\nThere's something new in your course. Open Learnwell on learn.test to see it.\n\n"
         "Keep going, you're {pct}% through!\n\n—\nLearnwell",),
    ),
}

# Newsletters: key -> (sender name, email, domain, cadence days, subject template, stories (headline, blurb))
Newsletter = tuple[str, str, str, int, str, tuple[tuple[str, str], ...]]

NEWSLETTERS: dict[str, Newsletter] = {
    "frontend": (
        "Frontend Digest", "digest@frontenddigest.test", "frontenddigest.test", 7,
        "Frontend Digest #{issue}: {headline}",
        (("CSS container queries in practice", "Three production layouts rebuilt without a single media query."),
         ("The state of web fonts", "Why self-hosting is back, and what it costs."),
         ("Faster forms with less JavaScript", "Native validation has quietly become very good."),
         ("A field guide to view transitions", "Page changes that feel like an app, with a fallback."),
         ("Accessible modals, finally", "The dialog element, focus traps and what screen readers announce."),
         ("Testing without the flake", "Stable end-to-end tests start with stable selectors."),
         ("Bundle size budgets that stick", "How one team kept its app under 150 kB for a year."),
         ("Images: the easy 40%", "Responsive images are still the cheapest performance win."),
         ("Dark mode done right", "Colour tokens, contrast and the prefers-color-scheme query."),
         ("What's new in the browser this month", "Three features that shipped everywhere.")),
    ),
    "ledger": (
        "The Harbor Ledger", "newsletter@harborledger.test", "harborledger.test", 7,
        "This week in Harbor City: {headline}",
        (("The ferry timetable changes again", "What the new winter schedule means for commuters."),
         ("A new bakery on Quay Street", "Queues around the block on opening day."),
         ("Council approves the riverside path", "Construction starts in spring."),
         ("Farmers' market moves indoors", "The winter market opens in the old customs hall."),
         ("Harbor City marathon: road closures", "Which streets close, and when."),
         ("The library's late-night openings", "Thursdays until 10 pm, from next month."),
         ("Rents rise for the third quarter running", "What renters can do about it."),
         ("Jazz festival line-up announced", "Twelve stages, four days, one very long queue.")),
    ),
    "trailhead": (
        "Trailhead Weekly", "hello@trailheadweekly.test", "trailheadweekly.test", 7, "Trailhead Weekly: {headline}",
        (("Five coastal walks under 10 km", "Sea views, cafés at the end, no scrambling."),
         ("Layering for cold mornings", "A simple system that works from autumn to spring."),
         ("How to read a contour map", "Ten minutes that will save you a wrong turn."),
         ("The best hut-to-hut routes", "Sleep high without carrying a tent."),
         ("Trail running for beginners", "Start slow, walk the hills, enjoy it."),
         ("Leave no trace, explained", "Seven principles and why they matter."),
         ("Waterproofs tested in real rain", "We wore twelve jackets in a wet week."),
         ("Stargazing spots near the city", "Dark skies within an hour's drive.")),
    ),
    "cartwheel": (
        "Cartwheel", "deals@shop.test", "shop.test", 7, "This week at Cartwheel: {headline}",
        (("Up to 40% off kitchen essentials", "Cast iron, knives and the coffee gear you keep looking at."),
         ("Outdoor season starts now", "Tents, packs and headlamps, all with free returns."),
         ("New in Books", "Fresh fiction and the season's best cookbooks."),
         ("Our top-rated headphones", "Chosen by more than 10,000 reviews."),
         ("Home refresh: linens and lamps", "Small changes, big difference."),
         ("Gifts under $30", "For everyone on your list."),
         ("Fitness gear for the new season", "Mats, bands and foam rollers."),
         ("Last chance: weekend flash sale", "Ends Sunday at midnight.")),
    ),
    "pocketchef": (
        "Pocket Chef", "recipes@pocketchef.test", "pocketchef.test", 7, "Pocket Chef: {headline}",
        (("Five dinners in 20 minutes", "Weeknight cooking without the takeaway."),
         ("The perfect roast potato", "Par-boil, rough up, hot fat. That's it."),
         ("Soups for a cold week", "Lentil, leek and a very good minestrone."),
         ("Baking bread without a mixer", "No-knead, no stress."),
         ("Meal prep that doesn't get boring", "Cook components, not meals."),
         ("Pasta from the pantry", "Six recipes from what you already have."),
         ("A better weekend brunch", "Shakshuka, pancakes and proper coffee."),
         ("Spice rack basics", "Twelve jars that cover most recipes.")),
    ),
    "productnotes": (
        "Product Notes", "notes@productnotes.test", "productnotes.test", 14, "Product Notes #{issue}: {headline}",
        (("Writing a one-page product brief", "What to leave out is the hard part."),
         ("Roadmaps that survive contact with sales", "Themes, not feature lists."),
         ("Running a good discovery interview", "Ask about the past, not the future."),
         ("Metrics that matter in year one", "Retention beats everything else."),
         ("Saying no without burning bridges", "A script for stakeholder requests."),
         ("Pricing experiments, carefully", "How to test prices without angering customers.")),
    ),
}
# Someone at a newsletter's own domain who writes personally (not a newsletter): (first, last, subject, body)
NEWSLETTER_PEOPLE: dict[str, tuple[str, str, str, str]] = {
    "frontend": ("Ravi", "Menon", "Would you write a guest piece?",
                 "Hi {me},\n\nI edit Frontend Digest and really enjoyed your talk on design systems. Would you "
                 "consider writing a short guest piece for an issue next month? 800 words, any angle you "
                 "like.\n\nNo pressure at all, just let me know.\n\nRavi"),
    "ledger": ("Hollis", "Greer", "Quick question for a story",
               "Hi {me},\n\nI'm a reporter at The Harbor Ledger, writing about local tech employers. Would you "
               "have ten minutes for a phone call this week?\n\nThanks,\nHollis Greer"),
    "trailhead": ("Sage", "Whitcombe", "Your trail photo",
                  "Hi {me},\n\nWe loved the photo you shared of the ridge walk. Could we feature it in a "
                  "future issue, with credit? Just reply yes and we'll take care of the rest.\n\nSage, "
                  "Trailhead Weekly"),
    "cartwheel": ("Morgan", "Ellery", "About your recent review",
                  "Hi {me},\n\nThanks for reviewing your recent purchase. Our product team would love to hear "
                  "more about the issue you mentioned. Would you be open to a 15-minute call?\n\nMorgan, "
                  "Cartwheel Customer Care"),
    "pocketchef": ("Tess", "Abernathy", "Your recipe submission",
                   "Hi {me},\n\nThank you for sending in your lentil soup recipe! We'd like to test it in our "
                   "kitchen for a future issue. Is it all right if we adapt the quantities slightly?\n\nTess, "
                   "Pocket Chef"),
    "productnotes": ("Ingrid", "Solberg", "Podcast invitation",
                     "Hi {me},\n\nI host the Product Notes podcast. Would you join us for an episode about "
                     "running customer advisory boards? Recording takes about 45 minutes, remotely.\n\n"
                     "Best,\nIngrid"),
}

SPAM: tuple[tuple[str, str, str, str], ...] = (
    ("Prize Desk", "winner@prize-desk.test", "Congratulations! You've been selected for a $1,000 gift card",
     "Dear customer,\n\nYou have been selected! Claim your $1,000 gift card today. Offer expires in 24 hours.\n\n"
     "Click here to claim."),
    ("Crypto Alpha", "alpha@cryptoalpha.test", "Exclusive: 300% returns in 30 days",
     "Our members made 300% last month. Spaces are limited. Reply YES to join the private group."),
    ("Dr. Slim", "offers@slimfast-now.test", "Lose 10 kg in 10 days – doctors hate this",
     "One simple trick. No diet, no exercise. Order now and get a second bottle free."),
    ("Luxury Watches", "sales@watches-outlet.test", "Designer watches at 90% off",
     "Top brands, lowest prices. Free shipping worldwide. Limited stock."),
    ("Cruise Rewards", "rewards@cruise-rewards.test", "Your free cruise is waiting",
     "You qualify for a complimentary 7-night cruise. Just pay port fees. Reply to reserve your cabin."),
    ("Auto Protect", "notice@autoprotect-plans.test", "Final notice: your car warranty expires",
     "We have been trying to reach you about your vehicle's extended warranty. Act now to keep coverage."),
    ("SEO Experts", "growth@rank-first.test", "Get your website to #1 on search",
     "Hi,\n\nI noticed your website isn't ranking for important keywords. We guarantee first-page results in "
     "30 days."),
    ("Inheritance Office", "office@estate-claims.test", "Unclaimed funds in your name",
     "Dear friend,\n\nA sum of $4,500,000 is awaiting transfer to your account. Kindly reply with your details."),
)

# Sent mail the user started (no reply yet): (to-kind, subject, body)
STANDALONE_SENT: tuple[tuple[str, str, str], ...] = (
    ("colleague", "Slides from today", "Hi {them},\n\nHere are the slides from this morning's session. The "
                                       "numbers on slide 6 are still provisional.\n\nThanks"),
    ("client", "Checking in", "Hi {them},\n\nJust checking in to see how the first weeks have gone on your "
                              "side. Anything we should adjust before the review on {date}?\n\nBest"),
    ("personal", "Train times for Saturday", "Hi {them},\n\nThe 9:12 gets in at 10:40, so I'll meet you at the "
                                             "station café. Text me if anything changes!"),
    ("colleague", "Cover while I'm out on {day}", "Hi {them},\n\nI'm out on {day}. Could you cover the "
                                                  "{project} stand-up? Notes are in the usual doc.\n\nThanks!"),
    ("client", "Proposal attached", "Hi {them},\n\nAs promised, the proposal is attached. Happy to walk you "
                                    "through it on a call this week.\n\nBest"),
)

PHISHING_SUBJECTS = (
    "Action required: your mailbox password expires in 24 hours",
    "Mailbox storage full – verify your account to keep receiving mail",
    "Unusual sign-in blocked – confirm your identity now",
)
PHISHING_BODY = (
    "Dear {me_full},\n\nOur security system has flagged your Northwind mailbox. {reason}\n\nTo avoid losing "
    "access to your email, verify your account within 24 hours by confirming your current password:\n\n"
    "{url}\n\nIf you do not verify, your mailbox will be suspended and incoming messages may be lost.\n\n"
    "Thank you for your cooperation,\nNorthwind IT Service Desk\nThis is an automated message. Please do not "
    "reply."
)
PHISHING_REASONS = {
    PHISHING_SUBJECTS[0]: "Your password is due to expire today.",
    PHISHING_SUBJECTS[1]: "Your mailbox has reached 99% of its storage quota.",
    PHISHING_SUBJECTS[2]: "We blocked a sign-in attempt from an unrecognised device.",
}
LEGIT_IT_SUBJECT = "Planned maintenance: email unavailable on {day} evening"
LEGIT_IT_BODY = (
    "Hi everyone,\n\nWe're upgrading the mail servers on {day} from 19:00 to 21:00. During that window you may "
    "not be able to send or receive email. Nothing is lost: messages sent to you will arrive after the "
    "upgrade.\n\nYou don't need to do anything. As a reminder, IT will never ask for your password by email "
    "or send you a link to 'verify' your account. If you get a message like that, delete it and let us "
    "know.\n\nThanks,\nNorthwind IT"
)

# Travel: (airline name, domain, flight prefix), hotels (name, domain)
AIRLINES = (("Skyway Airlines", "skywayair.test", "SK"), ("Aurora Air", "auroraair.test", "AU"),
            ("Bluecrest Airways", "bluecrest.test", "BC"))
DESTINATIONS = (("Lisbon", "LIS"), ("Copenhagen", "CPH"), ("Edinburgh", "EDI"), ("Barcelona", "BCN"),
                ("Vienna", "VIE"), ("Dublin", "DUB"), ("Porto", "OPO"), ("Montréal", "YUL"))
HOME_AIRPORT = ("Harbor City", "HBC")
HOTELS = (("Harbourview Hotels", "harbourviewhotels.test"), ("Linden Stay", "lindenstay.test"),
          ("The Cartographer Hotel", "cartographerhotel.test"))
TRIP_REASONS = ("team offsite", "partner conference", "customer summit")

VACATION_SUBJECTS = ("Out of office until {end}", "Away until {end}", "On leave – back {back}",
                     "Annual leave: {start} to {end}")
VACATION_BODY = (
    "Hi,\n\nThanks for your message. I'm away from {start} to {end} with limited access to email. I'll reply "
    "when I'm back.\n\nFor anything urgent, please contact {colleague_full} ({colleague_email}).\n\nBest "
    "regards,\n{me_full}"
)

CATERERS = (("Saltbox Catering", "saltboxcatering.test"), ("Mirepoix Events", "mirepoixevents.test"),
            ("Basil & Bay Catering", "basilandbay.test"))
