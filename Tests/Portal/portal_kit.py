"""What every portal journey shares: the browser, form filling that waits for the next page,
the mail spool, registration and login. Journey files import it:

    from portal_kit import *

BASE (the server URL) and SPOOL (its mail spool) come from the first two arguments.

Every portal page the browser opens (by address, by a form, or with the back button) is checked
with axe-core, the accessibility rules engine, signed in or out; a violation fails the journey
with the rule, its impact, the page and the elements (see `audit`).
"""
import atexit
import glob
import subprocess
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

from axe_selenium_python import Axe
from selenium import webdriver
from selenium.common.exceptions import NoAlertPresentException, WebDriverException
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.support import expected_conditions
from selenium.webdriver.support.ui import WebDriverWait

BASE, SPOOL = sys.argv[1].rstrip("/"), sys.argv[2]
PASSWORD = "correct horse battery"


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def mailed_code(address, timeout=20):
    """The code of the newest mail to `address` in the spool (an indented line of its own). The
    server sends mail just after it answers, so this waits for it up to `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        for path in sorted(glob.glob(os.path.join(SPOOL, "*.eml")), reverse=True):
            text = open(path, encoding="utf-8").read()
            if f"To: {address}" not in text:
                continue
            for line in text.splitlines():
                if line.startswith("    ") and line.strip() and " " not in line.strip():
                    return line.strip()
        if time.monotonic() > deadline:
            raise AssertionError(f"no mail to {address} in {SPOOL}")
        time.sleep(0.05)


AUDITED = {"pages": 0, "signed_in": 0, "version": ""}

# The axe-core that axe-selenium-python ships (3.1.1, 2018) predates the HTML standard's
# `one-time-code` autofill token, which the activation and reset forms use so that a phone offers
# the mailed code; later axe-core releases list it among the valid terms. Taught here, so that
# the old engine checks the rest of the rule as it stands. Nothing else is taught: the portal's
# other fields pass the engine as shipped (a study password field says `new-password`, not `off`,
# which this engine finds unfit for a password field).
AXE_CONFIGURATION = """
axe.configure({checks: [
    {id: "autocomplete-valid", options: {standaloneTerms: ["one-time-code"]}}
]});
"""


def audit(driver):
    """Runs axe-core on the page the browser shows, when it is a portal page (HTML from BASE), and
    raises naming every violation: the rule, its impact, what it asks for and the elements. Called
    after every page the journeys open, so each page is checked in each state they bring it to
    (signed out, signed in, with an error beside a field, ...)."""
    if not driver.current_url.startswith(BASE) or driver.execute_script("return document.contentType") != "text/html":
        return
    axe = Axe(driver)
    axe.inject()
    driver.execute_script(AXE_CONFIGURATION)
    violations = axe.run()["violations"]
    signed_in = any(cookie["name"] == "uniti_session" for cookie in driver.get_cookies())
    page = driver.current_url[len(BASE):] or "/"
    if violations:
        found = "\n".join(
            f"  {v['id']} ({v['impact']}): {v['help']} at " + ", ".join(" ".join(node["target"]) for node in v["nodes"])
            for v in violations)
        raise AssertionError(f"axe-core finds {len(violations)} accessibility violation(s) on {page} "
                             f"({'signed in' if signed_in else 'signed out'}):\n{found}")
    AUDITED["pages"] += 1
    AUDITED["signed_in"] += signed_in
    AUDITED["version"] = AUDITED["version"] or driver.execute_script("return axe.version")


@atexit.register
def report_audit():
    if AUDITED["pages"]:
        print(f"accessibility: axe-core {AUDITED['version']} found no violation on {AUDITED['pages']} portal pages "
              f"({AUDITED['signed_in']} signed in)")


class AuditedChrome(webdriver.Chrome):
    """Chromium whose every navigation is followed by `audit` (forms go through `click_and_wait`)."""

    def get(self, url):
        super().get(url)
        audit(self)

    def back(self):
        super().back()
        audit(self)


def browser(language=None):
    """Headless Chromium; with `language` (`el`), one whose person reads that language: it
    sends it as Accept-Language, as a browser set up in Greece would."""
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=412,915"):
        options.add_argument(argument)
    if language:
        options.add_argument(f"--lang={language}")
        options.add_experimental_option("prefs", {"intl.accept_languages": language})
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return AuditedChrome(service=service, options=options)


def save_whole_page(driver, path, width):
    """Saves the current page at `width`, the whole of it from top to bottom (at most 6000 px),
    and sets the window back to a phone's size."""
    driver.set_window_size(width, 900)
    height = driver.execute_script("return document.documentElement.scrollHeight")
    driver.set_window_size(width, max(600, min(int(height) + 40, 6000)))
    driver.save_screenshot(path)
    driver.set_window_size(412, 915)


def fill(driver, **fields):
    for name, value in fields.items():
        element = driver.find_element(By.NAME, name)
        element.clear()
        element.send_keys(value)
    click_and_wait(driver, driver.find_element(By.ID, "submit"))


def click_and_wait(driver, element):
    """Clicks a button that posts a form and waits until the next page replaced this one."""
    page = driver.find_element(By.TAG_NAME, "html")
    element.click()
    WebDriverWait(driver, 30).until(lambda _: is_replaced(page), message="the form did not lead to a new page")
    audit(driver)


def is_replaced(element):
    """Whether `element` has left the document. Under load chromedriver sometimes answers a look at
    a node of the page just replaced with "Node with given id does not belong to the document"
    instead of a stale-element error (both journey scripts failed on it when run together), so
    that answer counts as replaced too."""
    try:
        return expected_conditions.staleness_of(element)(None)
    except WebDriverException as error:
        if "does not belong to the document" in str(error):
            return True
        raise


def text(driver):
    return driver.find_element(By.TAG_NAME, "body").text


def fresh(driver, path="/login"):
    driver.delete_all_cookies()
    driver.get(BASE + path)


def register_and_activate(driver, name):
    driver.get(BASE + "/register")
    fill(driver, username=name, email=f"{name}@example.org", password=PASSWORD, passwordRepeat=PASSWORD)
    check(driver.current_url.startswith(BASE + "/activate"), f"registration did not lead to activation: {driver.current_url}")
    fill(driver, code=mailed_code(f"{name}@example.org"))
    check(driver.current_url == BASE + "/login?notice=activated", f"activation failed: {text(driver)}")


def log_in(driver, login, password=PASSWORD):
    driver.get(BASE + "/login")
    fill(driver, login=login, password=password)




def uniti(data_dir, command, stdin=""):
    """Runs the real shell program ($UNITI_PROGRAM) on `data_dir` against this server with one
    command and piped answers; returns (status, stdout, stderr)."""
    program = os.environ["UNITI_PROGRAM"]
    result = subprocess.run([program, "--data-dir", data_dir, "--server", BASE, "-c", command],
                            input=stdin, capture_output=True, text=True, timeout=120)
    return result.returncode, result.stdout, result.stderr
