"""Browser journeys through the participant portal: headless Chromium driven by Selenium against
a real uniti-server on loopback. Started by Tests/EndToEndTests/PortalBrowserTests.swift:

    python journeys.py SERVER_URL MAIL_SPOOL_DIRECTORY

One browser session for all journeys (each starts from a cleared cookie jar). Prints one line per
journey; any failed check exits non-zero with the reason.
"""
from portal_kit import *  # noqa: F401,F403 (the shared kit: browser, fill, check, …)
import json
import urllib.error
import urllib.request

from selenium.common.exceptions import NoAlertPresentException
from selenium.webdriver.common.by import By


def journey_account(driver):
    """Register → activate from the mail spool → log in → start page shows the username → log
    out → back shows no private page, and the start page redirects to login."""
    fresh(driver)
    register_and_activate(driver, "anna")
    log_in(driver, "anna@example.org")
    check(driver.current_url == BASE + "/", f"login did not reach the start page: {driver.current_url}")
    check(driver.find_element(By.ID, "username").text == "anna", "the start page does not show the username")
    check(driver.find_element(By.ID, "no-studies").is_displayed(), "the start page lists studies of a new account")
    click_and_wait(driver, driver.find_element(By.ID, "logout"))
    check(driver.current_url.startswith(BASE + "/login"), f"logout did not lead to the login page: {driver.current_url}")
    driver.back()
    check("anna" not in [e.text for e in driver.find_elements(By.ID, "username")], "back after logout shows the private page")
    check(driver.current_url.startswith(BASE + "/login"), f"back after logout stays on {driver.current_url}")
    driver.get(BASE + "/")
    check(driver.current_url == BASE + "/login", f"the start page after logout did not redirect to login: {driver.current_url}")
    print("account journey: register, activate, log in, start page, log out, back shows nothing private")


def journey_csrf(driver):
    """A POST that carries the session cookie but no CSRF token is refused 403 and ends nothing."""
    fresh(driver)
    log_in(driver, "anna")
    session = next(c["value"] for c in driver.get_cookies() if c["name"] == "uniti_session")
    check(next(c for c in driver.get_cookies() if c["name"] == "uniti_session")["httpOnly"], "the session cookie is not HttpOnly")
    request = urllib.request.Request(BASE + "/logout", data=b"", method="POST",
                                     headers={"Cookie": f"uniti_session={session}",
                                              "Content-Type": "application/x-www-form-urlencoded"})
    try:
        urllib.request.urlopen(request)
        raise AssertionError("a POST without a CSRF token was accepted")
    except urllib.error.HTTPError as error:
        check(error.code == 403, f"a POST without a CSRF token answered {error.code}, not 403")
    driver.get(BASE + "/")
    check(driver.find_element(By.ID, "username").text == "anna", "the refused POST logged the session out")
    print("csrf journey: a POST with the session cookie but without the token is refused 403")


def journey_escaping(driver):
    """A script typed into the login field comes back as text and never runs."""
    fresh(driver)
    attack = "<script>alert(1)</script>"
    log_in(driver, attack, "wrong password")
    try:
        alert = driver.switch_to.alert
        raise AssertionError(f"an alert ran: {alert.text}")
    except NoAlertPresentException:
        pass
    check(driver.find_element(By.NAME, "login").get_attribute("value") == attack, "the login field does not keep what was typed")
    check(driver.find_element(By.ID, "error").is_displayed(), "no error shown after a wrong login")
    check(not driver.find_elements(By.XPATH, "//main//script"), "the typed script became an element")
    print("escaping journey: a typed script is shown as text and does not run")


def journey_throttle(driver):
    """Five wrong passwords in the portal: the API (asked at once, the first wait is two seconds)
    and then the portal say to wait."""
    fresh(driver)
    for _ in range(5):
        log_in(driver, "anna", "wrong password")
    body = json.dumps({"login": "anna", "password": PASSWORD}).encode()
    request = urllib.request.Request(BASE + "/api/v1/account/login", data=body, method="POST",
                                     headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(request)
        raise AssertionError("the API logged in although the portal throttled this login")
    except urllib.error.HTTPError as error:
        check(error.code == 429, f"the API answered {error.code}, not 429")
    log_in(driver, "anna")
    check("Too many failed logins" in text(driver), f"no throttle message after five failures: {text(driver)}")
    print("throttle journey: portal failures throttle the portal and the API")


def journey_language(driver):
    """The language switch shows the page in German and keeps it."""
    fresh(driver)
    click_and_wait(driver, driver.find_element(By.ID, "language-de"))
    check(driver.current_url == BASE + "/login", f"the switch left the page: {driver.current_url}")
    check(driver.find_element(By.TAG_NAME, "html").get_attribute("lang") == "de", "the page is not marked German")
    check("Benutzername oder E-Mail" in text(driver), f"the login page is not German: {text(driver)}")
    driver.get(BASE + "/register")
    check("Konto anlegen" in text(driver), "the choice did not stay")
    print("language journey: the switch shows German")


def journey_every_page(driver):
    """Every portal page a person can open by its address, signed out and signed in, once each
    (`audit` checks each with axe-core as it opens; the pages behind a questionnaire, an entry of
    the health record or a study are checked by the journeys that reach them)."""
    fresh(driver)
    signed_out = ["/login", "/register", "/activate", "/password/forgot", "/password/reset", "/no-such-page"]
    signed_in = ["/", "/studies", "/profile", "/data", "/questionnaires", "/record", "/record/events", "/record/events/new",
                 "/record/therapies", "/record/therapies/new", "/record/audiograms", "/record/audiograms/new", "/no-such-page"]
    for path in signed_out:
        driver.get(BASE + path)
    log_in(driver, "anna")
    for path in signed_in:
        driver.get(BASE + path)
        check(driver.current_url.startswith(BASE + path.rstrip("/")), f"{path} led to {driver.current_url}")
    print(f"every-page journey: {len(signed_out)} pages signed out and {len(signed_in)} signed in opened")


if __name__ == "__main__":
    driver = browser()
    try:
        for journey in (journey_account, journey_csrf, journey_escaping, journey_language, journey_every_page, journey_throttle):
            journey(driver)
    finally:
        driver.quit()
