"""Browser journey through the person's own portal pages: studies (password and by-request
joining, leaving), password change (another browser is logged out), the download of all their
data, deactivation. Started by Tests/EndToEndTests/PortalAccountBrowserTests.swift:

    python journey_account.py SERVER_URL MAIL_SPOOL_DIRECTORY

The server has a password study `secret` (password "let me in"), a by-request study `asking` and
a public study `terms` whose consent is Markdown that tries to run script, made with the
coordinator commands. Prints one line per journey; a failed check exits non-zero.
"""
from portal_kit import *  # noqa: F401,F403 (the shared kit: browser, fill, check, …)
import json
import urllib.request

from selenium.webdriver.common.by import By

NEW_PASSWORD = "a brand new horse"


def join_by_id(driver, study, password=""):
    driver.get(BASE + "/studies")
    for name, value in (("study", study), ("password", password)):
        field = driver.find_element(By.CSS_SELECTOR, f"#join-by-id [name={name}]")
        field.clear()
        if value:
            field.send_keys(value)
    click_and_wait(driver, driver.find_element(By.ID, "join-by-id-submit"))


def journey_consent(driver):
    """The public study `terms` lists its consent, written in Markdown, as the elements Markdown
    makes: a heading under the study's own, a list, emphasis, links to https and mailto only. Its
    raw HTML (script, an image with onerror, a bold with onclick), its javascript: links (plain
    and hidden behind a character reference) and its escaped tags are text or plain words."""
    driver.get(BASE + "/studies")
    consent = driver.find_element(By.CSS_SELECTOR, "#study-terms .consent-text")
    heading = consent.find_element(By.TAG_NAME, "h3")
    check(heading.text == "Taking part in Terms", f"the consent's heading is '{heading.text}'")
    items = [item.text for item in consent.find_elements(By.CSS_SELECTOR, "ul > li")]
    check(items == ["You may stop at any time.", "Your answers stay under a pseudonym."], f"the consent's list is {items}")
    check(consent.find_element(By.TAG_NAME, "strong").text == "your answers", "the consent's bold text is not bold")
    check(consent.find_element(By.TAG_NAME, "em").text == "the study", "the consent's emphasis is not emphasised")
    links = {link.text: link.get_attribute("href") for link in consent.find_elements(By.TAG_NAME, "a")}
    check(links == {"our page": "https://example.org/terms", "write to us": "mailto:team@example.org"},
          f"the consent's links are {links}")
    for tag in ("script", "img", "b", "iframe"):
        check(not consent.find_elements(By.TAG_NAME, tag), f"the consent put a <{tag}> element into the page")
    handlers = driver.execute_script(
        "return [...arguments[0].querySelectorAll('*')].flatMap(e => [...e.attributes].map(a => a.name))"
        ".filter(n => n.startsWith('on'))", consent)
    check(handlers == [], f"the consent's elements carry event handlers: {handlers}")
    shown = consent.text
    for words in ('<script>window.consentRan = "script"</script>', "harmless-looking link", "<b>not bold</b>",
                  "not bold either", "onerror"):
        check(words in shown, f"'{words}' is not shown as text in the consent: {shown}")
    check(driver.execute_script("return window.consentRan") is None, "the consent ran script")
    # A password study is listed (its password field beside its join form), and the page passed
    # axe-core as shipped on the way in (AuditedChrome.get).
    check(driver.find_element(By.ID, "password-secret").get_attribute("type") == "password",
          "the password study has no password field on /studies")
    print("consent journey: Markdown rendered (heading, list, emphasis, https and mailto links), raw HTML and "
          "javascript: links inert; /studies with a password study passes axe-core")


def journey_studies(driver):
    """A wrong study password shows its message beside the field; the right one makes a member;
    leaving works; a by-request study shows as pending."""
    join_by_id(driver, "secret", "not the password")
    error = driver.find_element(By.ID, "join-error")
    check("wrong" in error.text, f"no message beside the password field: {text(driver)}")
    check(driver.find_element(By.ID, "join-password").get_attribute("aria-describedby") == "join-error",
          "the password field does not point to its message")
    join_by_id(driver, "secret", "let me in")
    check("notice=studyJoined" in driver.current_url, f"the right password did not join: {text(driver)}")
    status = driver.find_element(By.CSS_SELECTOR, "#study-secret .status").text
    check(status == "member", f"after joining the study shows '{status}'")
    click_and_wait(driver, driver.find_element(By.ID, "leave-secret"))
    check("notice=studyLeft" in driver.current_url, f"leaving failed: {text(driver)}")
    check(driver.find_element(By.CSS_SELECTOR, "#study-secret .status").text == "left", "the study does not show as left")
    join_by_id(driver, "asking")
    check("notice=studyRequested" in driver.current_url, f"the request was not sent: {text(driver)}")
    check(driver.find_element(By.CSS_SELECTOR, "#study-asking .status").text == "request pending",
          "the by-request study does not show as pending")
    # Join the password study again, so the download below has a membership to show.
    driver.find_element(By.ID, "password-secret").send_keys("let me in")
    click_and_wait(driver, driver.find_element(By.ID, "join-secret"))
    check(driver.find_element(By.CSS_SELECTOR, "#study-secret .status").text == "member", "rejoining failed")
    print("studies journey: wrong password beside the field, join, leave, request pending")


def journey_password(driver, other):
    """Changing the password logs out a second browser that was logged in before."""
    fresh(other)
    log_in(other, "petra")
    check(other.current_url == BASE + "/", "the second browser did not log in")
    driver.get(BASE + "/profile")
    for name, value in (("currentPassword", PASSWORD), ("password", NEW_PASSWORD), ("passwordRepeat", NEW_PASSWORD)):
        driver.find_element(By.CSS_SELECTOR, f"#password-form [name={name}]").send_keys(value)
    click_and_wait(driver, driver.find_element(By.ID, "change-password"))
    check("notice=passwordChangedOthersOut" in driver.current_url, f"the password change failed: {text(driver)}")
    other.get(BASE + "/profile")
    check(other.current_url == BASE + "/login", f"the other browser is still logged in: {other.current_url}")
    driver.get(BASE + "/profile")
    check(driver.current_url == BASE + "/profile", "the browser that changed the password was logged out")
    print("password journey: changed, the other browser is logged out, this one stays")


def journey_download(driver):
    """The JSON download, fetched with this browser's session cookie, holds the person's data and
    no password hash."""
    driver.get(BASE + "/data")
    session = next(c["value"] for c in driver.get_cookies() if c["name"] == "uniti_session")

    def fetch(link_id):
        link = driver.find_element(By.ID, link_id)
        with urllib.request.urlopen(urllib.request.Request(link.get_attribute("href"),
                                                           headers={"Cookie": f"uniti_session={session}"})) as response:
            disposition = response.headers.get("Content-Disposition", "")
            check(disposition.startswith("attachment"), f"the {link_id} download is not an attachment: {disposition}")
            return response.headers.get("Content-Type", ""), response.read().decode("utf-8")

    _, body = fetch("download-json")
    data = json.loads(body)
    check(data["account"]["username"] == "petra", "the download is not petra's")
    check(data["account"]["email"] == "petra@example.org", "the download lacks the e-mail address")
    studies = {m["studyId"]: m["status"] for m in data["memberships"]}
    check(studies.get("secret") == "member" and studies.get("asking") == "pending", f"memberships wrong: {studies}")
    check(len(data["sessions"]) >= 2, "the logins are missing")
    check("$2" not in body and "hash" not in body.lower(), "the download contains a hash")
    content_type, fhir = fetch("download-fhir")
    check(content_type.startswith("application/fhir+json"), f"the FHIR download is {content_type}")
    bundle = json.loads(fhir)
    types = [entry["resource"]["resourceType"] for entry in bundle["entry"]]
    check(bundle["type"] == "collection" and types[0] == "Patient", f"not a FHIR collection with the Patient first: {types[:3]}")
    check("petra" not in fhir, "the FHIR bundle names the person")
    print("download journey: JSON attachment with the account, studies and logins, no hash; FHIR bundle by pseudonym")


def journey_deactivate(driver):
    """Deactivation with the password logs out, and the login page says the account is off; a
    login to it offers reactivation (the password typed again), which signs the person in."""
    driver.get(BASE + "/profile")
    driver.find_element(By.ID, "deactivate-password").send_keys(NEW_PASSWORD)
    click_and_wait(driver, driver.find_element(By.ID, "deactivate"))
    check(driver.current_url == BASE + "/login?notice=accountDeactivated", f"deactivation went to {driver.current_url}")
    check("deactivated" in text(driver), "the login page does not say the account is deactivated")
    driver.get(BASE + "/profile")
    check(driver.current_url == BASE + "/login", "the profile is still open after deactivation")
    log_in(driver, "petra", NEW_PASSWORD)
    check("deactivated" in driver.find_element(By.ID, "reactivate-explained").text,
          "logging in to a deactivated account does not offer reactivation")
    password = driver.find_element(By.ID, "password")
    check(password.get_attribute("value") == "", "the password came back in the reactivation form")
    password.send_keys(NEW_PASSWORD)
    click_and_wait(driver, driver.find_element(By.ID, "reactivate"))
    check(driver.current_url == BASE + "/?notice=reactivated", f"reactivation went to {driver.current_url}")
    check("active again" in text(driver) and "petra" in text(driver), "the start page does not say the account is active again")
    print("deactivate journey: password confirmed, logged out, a login offers reactivation, reactivated and signed in")


driver = browser()
other = browser()
try:
    fresh(driver)
    register_and_activate(driver, "petra")
    log_in(driver, "petra")
    journey_consent(driver)
    journey_studies(driver)
    journey_password(driver, other)
    journey_download(driver)
    journey_deactivate(driver)
finally:
    other.quit()
    driver.quit()
