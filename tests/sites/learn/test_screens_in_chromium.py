"""The platform's main pages in Chromium through the real proxy: landmarks, named controls and
screenshots (`WEBCHAOS_UPDATE_SCREENSHOTS=1` keeps them as docs/screens/learn-*.png). A name with a
colon is quoted whole in the snapshot, so the patterns match from the role on."""

import re
from pathlib import Path

import pytest

from harness.browser.pool import BrowserPool
from harness.services.control_client import ControlClient
from harness.services.oracle_client import OracleClient
from harness.services.processes import Services
from tests.screens import walk_pages

pytestmark = pytest.mark.e2e


@pytest.mark.asyncio(loop_scope="module")
async def test_main_pages_look_like_a_product(stack: Services, tmp_path: Path) -> None:
    oracle, control = OracleClient(stack.oracle_url, stack.secret), ControlClient(stack.control_url, stack.secret)
    try:
        info = await oracle.create_episode(site="learn", task_id="look", seed=1, episode_id="learn-look")
        proxy = (await control.open_episode("learn-look", 1, [], tmp_path / "ep"))["proxy_url"]
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
        async with BrowserPool() as pool:
            context = await pool.new_context(proxy)
            page = await context.new_page()
            await page.set_viewport_size({"width": 1280, "height": 900})
            await walk_pages(page, info["base_url"], pages)
            await context.close()
        await control.close_episode("learn-look")
    finally:
        await oracle.close()
        await control.close()
