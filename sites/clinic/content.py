"""Word lists the clinic's worlds are drawn from (names, specialties, tests, medicines)."""

FIRST_NAMES = ("Anna", "Arun", "Beatriz", "Caleb", "Dana", "Elif", "Farah", "Gabriel", "Hana", "Isaac", "Jonas",
               "Keiko", "Liam", "Maya", "Nadia", "Omar", "Priya", "Quentin", "Rosa", "Samuel", "Tessa", "Victor",
               "Wen", "Yusuf", "Zoe")
SURNAMES = ("Patel", "Nguyen", "Okafor", "Lindqvist", "Moreau", "Haddad", "Kowalski", "Ferreira", "Brennan",
            "Takahashi", "Alvarez", "Schmidt", "Osei", "Romano", "Ivanova", "Castillo", "Novak", "Mensah")
PATIENT_FIRST = ("Jordan", "Morgan", "Riley", "Casey", "Avery", "Quinn", "Harper", "Rowan")
PATIENT_LAST = ("Whitfield", "Marsh", "Calloway", "Dunmore", "Ashby", "Pryce", "Holloway", "Kerrigan")

LOCATIONS = (("Northside Clinic", "1200 Alder Street"), ("Riverside Medical Center", "45 Quay Road"),
             ("Downtown Health", "300 Market Square, 4th floor"))

# (specialty, location index) per provider: the structure every world shares.
ROSTER = (("Family Medicine", 0), ("Family Medicine", 1), ("Family Medicine", 2),
          ("Cardiology", 0), ("Cardiology", 0), ("Cardiology", 2),
          ("Dermatology", 1), ("Dermatology", 1), ("Dermatology", 1),
          ("Endocrinology", 2), ("Orthopedics", 0), ("Orthopedics", 1))
NAMESAKE_ROWS = (3, 4)        # the two cardiologists at Northside share a surname
FAMILY_ROW, ENDO_ROW, ORTHO_ROW = 0, 9, 10
DERMATOLOGY_ROWS = (6, 7, 8)
CREDENTIALS = ("MD", "DO", "MD, PhD")
LANGUAGES = ("English", "Spanish", "French", "Hindi", "Arabic", "Portuguese", "Japanese", "Polish")
BIOS = {
    "Family Medicine": "Sees adults and teenagers for check-ups, long-term conditions and everyday illness.",
    "Cardiology": "Treats heart rhythm problems, high blood pressure and heart failure.",
    "Dermatology": "Looks after skin, hair and nails, from acne and eczema to skin checks.",
    "Endocrinology": "Manages diabetes, thyroid disorders and other hormone conditions.",
    "Orthopedics": "Cares for bones, joints and sports injuries, with and without surgery.",
}

# test -> components: (name, unit, low, high, typical value, a value above the range)
TESTS: dict[str, tuple[tuple[str, str, float, float, float, float], ...]] = {
    "Lipid panel": (("Total cholesterol", "mg/dL", 125, 200, 178, 236), ("LDL cholesterol", "mg/dL", 0, 130, 104, 162),
                    ("HDL cholesterol", "mg/dL", 40, 90, 56, 58), ("Triglycerides", "mg/dL", 0, 150, 118, 121)),
    "Comprehensive metabolic panel": (("Glucose", "mg/dL", 70, 99, 88, 131), ("Sodium", "mmol/L", 135, 145, 140, 141),
                                      ("Potassium", "mmol/L", 3.5, 5.1, 4.2, 4.3),
                                      ("Creatinine", "mg/dL", 0.6, 1.3, 0.9, 1.0)),
    "Complete blood count": (("White blood cells", "K/uL", 4.0, 11.0, 6.8, 7.1),
                             ("Hemoglobin", "g/dL", 12.0, 17.5, 14.1, 14.0),
                             ("Platelets", "K/uL", 150, 400, 262, 270)),
    "Thyroid panel": (("TSH", "mIU/L", 0.4, 4.0, 1.9, 6.2), ("Free T4", "ng/dL", 0.8, 1.8, 1.2, 1.1)),
    "Hemoglobin A1c": (("Hemoglobin A1c", "%", 4.0, 5.6, 5.2, 6.1),),
    "Vitamin D": (("25-hydroxy vitamin D", "ng/mL", 30, 100, 41, 44),),
}
FLAGGABLE = ("Lipid panel", "Comprehensive metabolic panel", "Thyroid panel")

# name, dose, directions
MEDICATIONS = (("Lisinopril", "10 mg tablet", "Take one tablet by mouth every morning."),
               ("Atorvastatin", "20 mg tablet", "Take one tablet by mouth at bedtime."),
               ("Metformin", "500 mg tablet", "Take one tablet by mouth twice a day with meals."),
               ("Levothyroxine", "50 mcg tablet", "Take one tablet on an empty stomach every morning."),
               ("Cetirizine", "10 mg tablet", "Take one tablet by mouth once a day as needed for allergies."),
               ("Omeprazole", "20 mg capsule", "Take one capsule before breakfast."),
               ("Tretinoin", "0.025% cream", "Apply a thin layer to the affected skin at night."),
               ("Sertraline", "50 mg tablet", "Take one tablet by mouth once a day."))
PHARMACIES = (("Corner Pharmacy", "18 Alder Street"), ("Quay Drugstore", "2 Quay Road"),
              ("MarketPlus Pharmacy", "310 Market Square"))
CARRIERS = (("BlueHarbor Health", "PPO Silver"), ("Meridian Care", "HMO Gold"), ("Summit Mutual", "EPO Bronze"))

VISIT_REASONS = ("Annual check-up", "Follow-up on blood pressure", "Skin check", "Knee pain", "Medication review",
                 "Thyroid follow-up", "Palpitations", "Rash on forearm")
SYMPTOMS = ("Tired most afternoons and short of breath on stairs", "Itchy rash on both forearms",
            "Pain in the left knee when climbing stairs", "Dizzy when standing up quickly")
CONTACT_NAMES = ("Sam Whitaker", "Lee Fontaine", "Alex Moreno", "Robin Achebe", "Chris Lindgren", "Pat Okoye")
STAFF_LINES = ("Your lab results are ready to view.", "Please remember to bring your insurance card.",
               "Thanks for your message: we've updated your chart.", "Your prescription has been sent.")
