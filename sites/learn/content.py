"""Word lists Lectern's worlds are drawn from (courses, people, quiz questions, posts)."""

FIRST_NAMES = ("Aisha", "Ben", "Carmen", "Daniel", "Elena", "Felix", "Grace", "Hugo", "Ines", "Jamal", "Kira",
               "Leo", "Mina", "Noah", "Olga", "Pablo", "Rhea", "Sami", "Tara", "Uma", "Viktor", "Yara", "Zane")
SURNAMES = ("Chen", "Okafor", "Lindqvist", "Moreau", "Haddad", "Kowalski", "Ferreira", "Brennan", "Takahashi",
            "Alvarez", "Schmidt", "Osei", "Romano", "Ivanova", "Castillo", "Novak", "Mensah", "Dubois", "Park",
            "Quinn", "Reyes", "Sato")
USER_FIRST = ("Jordan", "Morgan", "Riley", "Casey", "Avery", "Quinn", "Harper", "Rowan")
USER_LAST = ("Whitfield", "Marsh", "Calloway", "Dunmore", "Ashby", "Pryce", "Holloway", "Kerrigan")
PROFESSORS = ("Dr. Helen Marsh-Oduya", "Prof. Tomasz Wieczorek", "Dr. Priya Raman", "Prof. Gareth Llewellyn",
              "Dr. Sofia Bianchi", "Prof. Kwame Asante")
COLORS = ("#4f46e5", "#0e7490", "#b45309", "#be185d", "#15803d", "#7c3aed")

# code, title, what its assignments are called, module topics (four weeks)
STUDENT_COURSES = (
    ("BIO 214", "Cell Biology", "Lab Report",
     ("Membranes and transport", "Cell signalling", "The cell cycle", "Energy and metabolism")),
    ("HIST 130", "Modern Europe, 1789-1945", "Essay",
     ("The French Revolution", "Industry and empire", "Nationalism", "The world wars")),
    ("CHEM 101", "General Chemistry", "Problem Set",
     ("Atoms and moles", "Chemical bonding", "Reactions in solution", "Thermochemistry")),
    ("ENG 205", "Writing about Science", "Writing Assignment",
     ("Reading a paper", "Explaining methods", "Writing for the public", "Peer review")),
    ("PSY 120", "Introduction to Psychology", "Reflection",
     ("Research methods", "Perception", "Memory and learning", "Social behaviour")),
)
TEACHING = ("STAT 110", "Introduction to Statistics", "Problem Set",
            ("Describing data", "Probability", "Sampling distributions", "Confidence intervals"))

LESSON_KINDS = (("reading", "Reading: {t}", 25), ("notes", "Lecture notes: {t}", 15),
                ("video", "Video: {t} in ten minutes", 10), ("reading", "Case study: {t}", 20))
LESSON_BODY = ("This lesson covers {t}. Work through the examples before the weekly assignment; the "
               "key terms are collected at the end. Bring your questions to the discussion board or to office hours.")

INSTRUCTIONS = ("Write {words} words on this week's topic, {t}. Use at least two course readings and cite them. "
                "Submit your text below, and attach your figures or your draft as a PDF if you have one.")

# quiz questions about the course's own policies (the same in every course, options shuffled)
SYLLABUS_QUESTIONS = (
    ("single", "How many late days do you have for the whole term?", ("Two", "None", "Five", "Ten"), ("Two",)),
    ("multiple", "Which of these may you use during quizzes?",
     ("Your own notes", "The course textbook", "A classmate's answers", "An AI chat assistant"),
     ("Your own notes", "The course textbook")),
    ("short", "Which day of the week are the weekly assignments due? (one word)", (), ("Friday",)),
    ("single", "Where should questions about grades go first?",
     ("The course Q&A board", "The department office", "The instructor's personal phone"), ("The course Q&A board",)),
)
PRACTICE_QUESTIONS = (
    ("single", "What does the syllabus call the weekly discussion?", ("Check-in", "Roundtable", "Forum hour"),
     ("Check-in",)),
    ("short", "How many modules does this course have? (a number)", (), ("4",)),
)

TOPIC_TITLES = ("Introductions: say hello", "Week 2 questions", "Exam review thread", "Study group finder")
STUDENT_POSTS = (
    "Could someone explain the difference between the two readings this week? I keep mixing them up.",
    "Is the lab write-up supposed to include the raw data table or only the summary?",
    "Does anyone want to form a study group for the midterm? I'm free Tuesday evenings.",
    "I found the video on this topic really helpful, especially the worked example near the end.",
    "Quick question: do the references count towards the word limit?",
    "Hi all, I'm in my second year and this is my first course in the department.",
)
ANNOUNCEMENT_LINES = (
    ("Welcome to the course", "Welcome! The syllabus and the first module are open. Please introduce yourself on "
                              "the discussion board this week."),
    ("Office hours this week", "Office hours move to Thursday 2-4 PM this week only, same room."),
    ("Readings for next week", "The readings for next week are posted in the module. Start early: the case "
                               "study is long."),
)
FEEDBACK_GOOD = ("Clear and well organised. Good use of the readings.", "Solid work; watch your citations.",
                 "Nicely argued. Your conclusion could be a little shorter.")
FEEDBACK_RESUBMIT = ("Your figures have no captions and the methods section is missing. Please resubmit with "
                     "both added; the resubmission replaces this grade.")
PS3_ANSWER = ("1. The mean is {mean} and the median is a little lower, so the data are skewed to the right.\n"
              "2. P(A or B) = {p}.\n3. The sampling distribution is close to normal because n = 40.\n"
              "4. My working for question 4 is in the notebook I shared in class.")
FILE_STEMS = ("notes-week-1", "reading-summary", "lab-photos", "outline", "figures")
EVENT_TITLES = ("Lecture", "Lab section", "Office hours")
ROOMS = ("Hall B 104", "Science Centre 2.18", "Library seminar room 3", "Online (video link in the module)")

# Rubric criteria (every rubric has these four) and their share of the assignment's points, by its points.
RUBRIC_CRITERIA = ("Argument", "Use of evidence", "Organisation", "Writing and citations")
RUBRIC_SPLIT = {20: (8, 4, 4, 4), 25: (10, 5, 5, 5), 50: (20, 15, 10, 5)}
RUBRIC_LEVELS = (("Excellent", 1.0), ("Proficient", 0.75), ("Developing", 0.5), ("Beginning", 0.25))
PEER_TEXTS = (
    "My {t} draft argues that the two readings disagree less than they seem to. I compare their methods first.",
    "This {t} draft starts from the lab data and works back to the theory; the figures are at the end.",
    "In this draft on {t} I look at three case studies and ask what they have in common.",
)
PEER_COMMENTS = ("Clear argument. The second section needs one more source.",
                 "Good structure; the figures need captions and the citations are incomplete.",
                 "Interesting cases. The conclusion repeats the introduction: say what is new.",
                 "Well written. Check the citation style against the course guide.")

# Inbox: what instructors and classmates write about (subjects look alike on purpose).
MESSAGE_SUBJECTS = ("A quick question", "Following up", "About this week", "Checking in")
MESSAGE_ROUTINE = (
    "Thanks for your last report: nice work on the figures. Keep it up.",
    "Just checking you saw the reading for next week: it is long, so start early.",
    "Your attendance has been great this term. See you on Thursday.",
)
MAKEUP_SLOTS = ("Tuesday 3 PM", "Wednesday 10 AM", "Thursday 1 PM", "Friday 9 AM")
MAKEUP_BODY = ("The lab session you missed is being run again as a make-up. Which one can you come to: {a} or "
               "{b}? Reply to this message so I can book you a bench.")
CLASSMATE_MAKEUP = "Are you going to the make-up lab? I'd like to go together if we pick the same slot."
STUDENT_QUESTIONS = ("Question about Problem Set 3", "Office hours", "Missed lecture")
STUDENT_BODY = "Hi, could I ask about {s} after class on Thursday? Thank you."

# The check-in quiz that opens when the previous week is finished.
CHECKIN_QUESTIONS = (
    ("single", "Which part of a report states what you found?", ("Results", "Methods", "Introduction"),
     ("Results",)),
    ("short", "What do you call the list of sources at the end of a paper? (one word)", (), ("References",)),
)

SYLLABUS_WEIGHTS = (("Assignments", 50), ("Quizzes", 10), ("Participation", 10), ("Final exam", 30))
UPLOAD_TEXT = ("1. The data in the first table are skewed to the right.\n2. The two readings agree on the method.\n"
               "3. My full working is below each answer.")
