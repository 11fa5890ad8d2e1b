"""The platform's main pages in Chromium through the real proxy: landmarks, named controls and
screenshots (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps them as docs/screens/learn-*.png). A name with a
colon is quoted whole in the snapshot, so the patterns match from the role on."""

import re
from pathlib import Path

import pytest

from harness.services.processes import Services
from tests.screens import site_browser, walk_pages

pytestmark = pytest.mark.e2e


@pytest.mark.asyncio(loop_scope="module")
async def test_main_pages_look_like_a_product(stack: Services, tmp_path: Path) -> None:
    async with site_browser(stack, tmp_path) as sites:
        info, page = await sites.open("learn", 1)
        b = info["bindings"]
        quiz, lessons, grade = b["quiz"], b["lessons"], b["grade"]
        pages = {
            "learn.png": ("/", r'- navigation "Main"'),
            "learn-modules.png": (f"/courses/{lessons['course_id']}",
                                  rf'button "Mark {re.escape(lessons["names"][0])} as done"'),
            "learn-quiz.png": (f"/courses/{quiz['course_id']}/quizzes/{quiz['quiz_id']}/take",
                               rf'radio "{re.escape(quiz["single"])}"'),
            "learn-calendar.png": ("/calendar", r'button "Add reminder"'),
            "learn-grade.png": (f"/courses/{grade['course_id']}/submissions/{grade['submission_id']}/grade",
                                r'textbox "Feedback"'),
            "learn-grades.png": (f"/courses/{b['resubmit']['course_id']}/grades", r'status "Course total"'),
            "learn-inbox.png": ("/inbox", rf'link "{re.escape(b["inbox"]["subject"])}, from '),
            "learn-compose.png": (f"/inbox/new?course={b['bulk']['course_id']}",
                                  rf'checkbox "{re.escape(b["bulk"]["names"][0])}"'),
            "learn-feedback-rubric.png": (f"/courses/{b['regrade']['course_id']}/submissions/"
                                          f"{b['regrade']['submission_id']}", r'link "Request a regrade"'),
            "learn-peer-review.png": (f"/courses/{b['peer']['course_id']}/peer-reviews/{b['peer']['review_ids'][0]}",
                                      r'button "Submit review"'),
            "learn-what-if.png": (f"/courses/{b['whatif']['course_id']}/grades/what-if?{b['whatif']['first_id']}="
                                  f"{b['whatif']['first_score']}", r'status "What-if total"'),
            "learn-checkin-locked.png": (f"/courses/{b['checkin']['course_id']}/quizzes/{b['checkin']['quiz_id']}",
                                         r"Locked:"),
        }
        await walk_pages(page, info["base_url"], pages)
