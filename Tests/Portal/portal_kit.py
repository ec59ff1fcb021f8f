"""What every portal journey shares: the browser, form filling that waits for the next page,
the mail spool, registration and login. Journey files import it:

    from portal_kit import *

BASE (the server URL) and SPOOL (its mail spool) come from the first two arguments.
"""
import glob
import subprocess
import json
import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request

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


def browser():
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage", "--window-size=412,915"):
        options.add_argument(argument)
    options.binary_location = os.environ.get("CHROMIUM", "/usr/bin/chromium")
    service = Service(executable_path=os.environ.get("CHROMEDRIVER", "/usr/bin/chromedriver"))
    return webdriver.Chrome(service=service, options=options)


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
