"""Words the travel generator draws from: cities, hotel names, rooms, reviews, airlines."""

# city -> (airport code, neighbourhoods, streets)
CITIES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...]]] = {
    "Lisbon": ("LIS", ("Baixa", "Alfama", "Belém", "Chiado"), ("Rua Augusta", "Rua da Prata", "Avenida da Liberdade")),
    "Barcelona": ("BCN", ("Gràcia", "El Born", "Eixample", "Barceloneta"), ("Carrer de Mallorca", "Passeig de Gràcia")),
    "Amsterdam": ("AMS", ("Jordaan", "De Pijp", "Centrum", "Oost"), ("Prinsengracht", "Keizersgracht", "Damrak")),
    "Vienna": ("VIE", ("Innere Stadt", "Neubau", "Leopoldstadt", "Wieden"), ("Kärntner Straße", "Mariahilfer Straße")),
    "Copenhagen": ("CPH", ("Nyhavn", "Vesterbro", "Nørrebro", "Indre By"), ("Strøget", "Bredgade", "Istedgade")),
    "Edinburgh": ("EDI", ("Old Town", "New Town", "Leith", "Stockbridge"), ("Royal Mile", "George Street", "Shore")),
}

NAME_FIRST = ("Aurora", "Bellwether", "Cobalt", "Driftwood", "Ember", "Fjord", "Granite", "Harbourlight", "Ivy",
              "Juniper", "Kestrel", "Linden", "Marlow", "Northgate", "Oakridge", "Pelican", "Quayside", "Rosewater",
              "Saltmarsh", "Tidewater", "Umber", "Vantage", "Willow", "Yarrow", "Zephyr", "Alder", "Birch", "Copper",
              "Dune", "Elm", "Foundry", "Gull", "Heron", "Iris", "Lantern", "Meadow")
NAME_KIND = ("Hotel", "House", "Suites", "Inn", "Residences", "Boutique Hotel", "Grand Hotel", "Lodge", "Rooms")

# (trap pair) near-identical names in the same city
NAMESAKES = (("Meridian Harbour Hotel", "Meridian Harbor Hotel"), ("The Grand Central", "Grand Central Hotel"),
             ("Casa Lumière", "Casa Lumiere Suites"), ("Parkview Residence", "Park View Residences"))

ROOMS = (  # name, beds, sleeps, size m2, price multiplier %
    ("Standard Double Room", "1 double bed", 2, 16, 100),
    ("Superior Queen Room", "1 queen bed", 2, 21, 118),
    ("Twin Room", "2 single beds", 2, 19, 104),
    ("Deluxe King Room", "1 king bed", 2, 27, 140),
    ("Family Room", "1 queen bed and 2 single beds", 4, 34, 175),
    ("Junior Suite", "1 king bed and a sofa bed", 3, 40, 210),
)

DESCRIPTIONS = (
    "A calm base a short walk from the old centre, with a leafy courtyard and a late bar.",
    "Bright, modern rooms above a busy street of cafés; the tram stops at the door.",
    "A restored townhouse with high ceilings, original tiles and a rooftop terrace.",
    "Straightforward, spotless rooms for travellers who spend their days out exploring.",
    "Design-led hotel with a bakery on the ground floor and bikes to borrow.",
    "Family-run since 1962, known for its generous breakfast and quiet back rooms.",
)

REVIEW_LINES = (
    ("Great location", "Walkable to everything, and the staff were lovely. Room was small but spotless."),
    ("Would stay again", "Comfortable beds and a good shower. Breakfast could have more choice."),
    ("Good value", "Exactly what we needed for a city weekend. Street noise at night, bring earplugs."),
    ("Lovely stay", "Friendly check-in, helpful tips for dinner. The terrace is a real bonus."),
    ("A bit dated", "Clean and quiet, but the rooms need a refresh. Wi-Fi was patchy on the top floor."),
)
REVIEWERS = ("Ana", "Ben", "Chloé", "Dmitri", "Elena", "Farid", "Greta", "Hiro", "Ines", "Jonas", "Kemi", "Lars",
             "Mara", "Nils", "Olga", "Pablo", "Rosa", "Sven", "Tara", "Viktor")

FIRST_NAMES = ("Alex", "Sam", "Jordan", "Robin", "Maya", "Noah", "Lena", "Omar", "Priya", "Tomás", "Ingrid", "Kai")
LAST_NAMES = ("Morgan", "Okafor", "Lindqvist", "Castillo", "Novak", "Brennan", "Takahashi", "Moreau", "Haddad")

AIRLINES = (("Skylark Air", "SK"), ("Northwind", "NW"), ("Bluefin Airways", "BF"), ("Aeroluz", "AL"))
