"""A Selenium agent whose Chromium goes through the webchaos proxy.

It drives Debian's Chromium with Debian's chromedriver (`apt-get install chromium-driver`;
`scripts/ensure-chromium.sh` installs both) and does the add-to-cart task the way a scripted
agent would: search, open the product, click Add to cart once, believe what the page says.

    webchaos run --task shop_add_to_cart --agent "cmd:python examples/selenium_agent.py"

The one line that points Selenium at webchaos:

    options.add_argument(f"--proxy-server={os.environ['WEBCHAOS_PROXY']}")

(chromedriver itself listens on loopback, which webchaos keeps out of the proxy with NO_PROXY.)
"""

import os
import re
import shutil
import sys

from selenium import webdriver
from selenium.common.exceptions import TimeoutException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support import expected_conditions as ec
from selenium.webdriver.support.ui import WebDriverWait


def _binary(env: str, *candidates: str) -> str:
    for candidate in (os.environ.get(env, ""), *candidates):
        found = shutil.which(candidate) if candidate and "/" not in candidate else candidate
        if found and os.access(found, os.X_OK):
            return found
    raise SystemExit(f"not found: {candidates[0]} (set {env})")


def main() -> int:
    wanted = re.search(r"Add one (.+?) to your shopping cart", os.environ["WEBCHAOS_INSTRUCTION"])
    if not wanted:
        print("cannot understand the instruction", file=sys.stderr)
        return 2
    name = wanted.group(1)
    options = webdriver.ChromeOptions()
    options.binary_location = _binary("WEBCHAOS_CHROMIUM", "/usr/lib/chromium/chromium", "chromium")
    options.add_argument(f"--proxy-server={os.environ['WEBCHAOS_PROXY']}")
    for flag in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
                 "--disable-component-update", "--window-size=1280,900"):
        options.add_argument(flag)
    driver = webdriver.Chrome(options=options, service=Service(_binary("CHROMEDRIVER", "/usr/bin/chromedriver",
                                                                       "chromedriver")))
    wait = WebDriverWait(driver, 10)
    try:
        driver.get(os.environ["WEBCHAOS_START_URL"])
        search = wait.until(ec.element_to_be_clickable((By.CSS_SELECTOR, "input[type=search]")))
        search.send_keys(name, Keys.ENTER)
        wait.until(ec.element_to_be_clickable((By.LINK_TEXT, name))).click()
        wait.until(ec.element_to_be_clickable((By.XPATH, "//button[normalize-space()='Add to cart']"))).click()
        try:
            wait.until(lambda d: "Added to cart" in d.find_element(By.TAG_NAME, "body").text
                       or d.find_elements(By.CSS_SELECTOR, "[role=alert]:not(:empty)"))
        except TimeoutException:
            print("the page said nothing after Add to cart", file=sys.stderr)
            return 1
        if "Added to cart" not in driver.find_element(By.TAG_NAME, "body").text:
            print("the shop said:", driver.find_element(By.CSS_SELECTOR, "[role=alert]").text, file=sys.stderr)
            return 1
        print("added", name)
        return 0
    finally:
        driver.quit()


if __name__ == "__main__":
    sys.exit(main())
