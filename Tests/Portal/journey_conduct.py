"""Browser journey through study conduct on the portal (issue 30): consent before joining, a new
consent version asked for again, leaving with deletion, and deleting the account. Started by
Tests/EndToEndTests/PortalConductBrowserTests.swift:

    python journey_conduct.py SERVER_URL MAIL_SPOOL_DIRECTORY SERVER_PROGRAM DATABASE CONSENT_V2_FILE

The server has a public study `consented` with a consent text (version 1), made with the
coordinator commands; the journey publishes version 2 with the same commands while the person
is a member. Prints one line per journey; a failed check exits non-zero.
"""
from portal_kit import *  # noqa: F401,F403 (the shared kit: browser, fill, check, …)
import subprocess
import sys

from selenium.webdriver.common.by import By

SERVER, DATABASE, CONSENT_V2 = sys.argv[3], sys.argv[4], sys.argv[5]


def status(driver):
    return driver.find_element(By.CSS_SELECTOR, "#study-consented .status").text


def journey_consent(driver):
    """The consent text is shown before joining and must be ticked; joining records version 1;
    a new version is asked for on the studies page, and agreeing records it."""
    driver.get(BASE + "/studies")
    shown = driver.find_element(By.CSS_SELECTOR, "#study-consented .consent-text").text
    check("Version one" in shown, f"the consent text is not shown before joining: {shown}")
    # Unticked, the browser does not send the form (the box is required): still not a member.
    driver.find_element(By.ID, "join-consented").click()
    check(driver.current_url == BASE + "/studies" and status(driver) != "member",
          f"joined without agreeing: {driver.current_url}, {status(driver)}")
    driver.find_element(By.ID, "consent-consented").click()
    click_and_wait(driver, driver.find_element(By.ID, "join-consented"))
    check("notice=studyJoined" in driver.current_url, f"joining with consent failed: {text(driver)}")
    agreed = driver.find_element(By.ID, "consent-agreed-consented").text
    check("version 1" in agreed, f"the page does not say which version was agreed: {agreed}")

    published = subprocess.run([SERVER, "study", "update", "consented", "--consent", CONSENT_V2, "--database", DATABASE],
                               capture_output=True, text=True, timeout=60)
    check(published.returncode == 0, f"publishing version 2 failed: {published.stderr}")
    driver.get(BASE + "/studies")
    form = driver.find_element(By.ID, "consent-form-consented")
    check("Version two" in form.text, f"the new version is not shown for agreement: {form.text}")
    driver.find_element(By.ID, "consent-consented").click()
    click_and_wait(driver, driver.find_element(By.ID, "agree-consented"))
    check("notice=consentAgreed" in driver.current_url, f"agreeing to version 2 failed: {text(driver)}")
    check("version 2" in driver.find_element(By.ID, "consent-agreed-consented").text, "version 2 is not recorded as agreed")
    check(not driver.find_elements(By.ID, "consent-form-consented"), "version 2 is still asked for after agreeing")
    print("consent journey: shown and required before joining, version 1 recorded, version 2 asked for and recorded")


def journey_leave(driver):
    """Leaving with deletion says so and leaves the person outside the study."""
    driver.get(BASE + "/studies")
    driver.find_element(By.ID, "delete-answers-consented").click()
    click_and_wait(driver, driver.find_element(By.ID, "leave-consented"))
    check("notice=studyLeftDeleted" in driver.current_url, f"leaving with deletion failed: {text(driver)}")
    check(status(driver) == "left", f"the study shows '{status(driver)}' after leaving")
    print("leave journey: left with the answers deleted")


def journey_delete(driver):
    """A wrong password deletes nothing and says so beside the form; the right one with the box
    ticked deletes the account, signs out, and the login no longer works."""
    driver.get(BASE + "/profile")
    driver.find_element(By.ID, "delete-password").send_keys("not my password")
    driver.find_element(By.ID, "delete-sure").click()
    click_and_wait(driver, driver.find_element(By.ID, "delete-account"))
    check(driver.find_elements(By.ID, "delete-error"), f"a wrong password gave no message: {text(driver)}")
    driver.get(BASE + "/profile")
    check(driver.current_url == BASE + "/profile", "a wrong password signed the person out")
    driver.find_element(By.ID, "delete-password").send_keys(PASSWORD)
    driver.find_element(By.ID, "delete-sure").click()
    click_and_wait(driver, driver.find_element(By.ID, "delete-account"))
    check(driver.current_url == BASE + "/login?notice=accountDeleted", f"deletion went to {driver.current_url}")
    check("deleted" in text(driver), "the login page does not say the account was deleted")
    log_in(driver, "cora")
    check(driver.current_url.startswith(BASE + "/login"), f"the deleted account still logs in: {driver.current_url}")
    print("delete journey: a wrong password keeps everything; deleted, signed out, the login refused")


driver = browser()
try:
    fresh(driver)
    register_and_activate(driver, "cora")
    log_in(driver, "cora")
    journey_consent(driver)
    journey_leave(driver)
    journey_delete(driver)
finally:
    driver.quit()
