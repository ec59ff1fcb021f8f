"""A site's staff in the console (issue 48), in headless Chromium against a real uniti-server: a
randomised study with two sites, whose stratification factor is the site, joined by request
after a screening and with consent; one participant asks to join at each site through the API
(as an app does, with the site's enrolment code, the screening answered and the consent agreed
to). An editor held to the site ulm enrols, opens the study on its participants page, which
lists only their site's request with its screening answers, approves it (the answers become the
member's first sheet), opens that participant's page and randomises them with the button
(stratum centre=ulm); the other site's participant's page is not found, the study-wide pages are
refused with the page that says why, and the export holds only their site's rows. axe checks
every page.

Run by ConsoleBrowserTests, which sets the study up on the command line first. Arguments: BASE SPOOL.
"""
import csv
import io
import time
import uuid

from console_kit import *

STUDY = "multi"

driver = browser()
try:
    pseudonyms = {}
    for name, site in (("ulla", "ulm"), ("athina", "athens")):
        api("POST", "/api/v1/account/register", {"username": name, "email": f"{name}@example.org", "password": PASSWORD})
        api("POST", "/api/v1/account/activate", {"token": mailed_code(f"{name}@example.org")})
        token = api("POST", "/api/v1/account/login", {"login": name, "password": PASSWORD})["accessToken"]
        started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
        screening = {"sheet": {
            "id": str(uuid.uuid4()), "questionnaireID": "multi-screen", "questionnaireVersion": 1, "isPartial": False,
            "answers": {"age": {"value": 47 if site == "ulm" else 52, "answeredAt": started}}, "startedAt": started,
            "endedAt": started, "clientVersion": "journey 1"}}
        joined = api("POST", f"/api/v1/studies/{STUDY}/join", {"site": site, "consentVersion": 1, "screening": screening}, token)
        check(joined.get("membership") == "pending" and joined["screening"]["eligible"], f"the request was not made: {joined}")
        pseudonyms[site] = api("GET", "/api/v1/account/profile", token=token)["pseudonym"]
    own, other = pseudonyms["ulm"], pseudonyms["athens"]

    # The site's editor enrols and opens the study: on its participants page, their site's only.
    totp, _ = enrol(driver, "edda@team.example.org")
    sign_in(driver, "edda@team.example.org", totp.at(time.time() + 30))
    check("editor at site ulm" in text(driver), f"the studies page does not say the site: {text(driver)}")
    click_and_wait(driver, driver.find_element(By.ID, f"study-{STUDY}"))
    check(driver.current_url == f"{BASE}/console/studies/{STUDY}/participants", f"the study opened at {driver.current_url}")
    check(own in text(driver) and other not in text(driver), f"the participants page is not the site's: {text(driver)}")
    tabs = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "nav a")]
    check("Overview" not in tabs and "Trial" not in tabs and "Team" not in tabs, f"study-wide tabs shown to a site's editor: {tabs}")

    # The request with its screening answers: read, then approved.
    details = driver.find_element(By.ID, f"screening-{own}")
    details.find_element(By.TAG_NAME, "summary").click()
    check("eligible" in details.text and "How old are you?" in details.text and "47" in details.text,
          f"the screening answers are not beside the request: {details.text}")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#requests button[value=approve]"))
    check(not driver.find_elements(By.ID, f"screening-{own}"), f"the request is still open: {text(driver)}")

    # Their participant's page: the site, and randomising with the button.
    click_and_wait(driver, driver.find_element(By.ID, f"participant-{own}"))
    check(driver.find_element(By.ID, "site").text == "ulm", f"the participant's site: {text(driver)}")
    click_and_wait(driver, driver.find_element(By.ID, "randomise"))
    check("notice=randomised" in driver.current_url and "centre=ulm" in text(driver), f"not randomised: {text(driver)}")

    # Nothing of the other site, nothing of the whole study.
    driver.get(f"{BASE}/console/studies/{STUDY}/participants/{other}")
    check("There is no such page." in text(driver) and other not in text(driver).replace(f"/participants/{other}", ""),
          f"the other site's participant was shown: {text(driver)}")
    for page in ("", "/trial", "/settings", "/team"):
        status, body = download(driver, f"/console/studies/{STUDY}{page}")
        # The team is an owner's page: refused for the role before the site is asked.
        reason = "your role in this study does not allow this" if page == "/team" else "your role holds at one site"
        check(status == 403 and reason in body.lower(), f"a site's editor reached {page or '/'}: {status}")
    status, answers = download(driver, f"/console/studies/{STUDY}/data/export?format=csv&site=athens")
    rows = list(csv.DictReader(io.StringIO(answers)))
    check(status == 200 and rows and {r["participant"] for r in rows} == {own} and {r["site"] for r in rows} == {"ulm"},
          f"the export is not the site's: {status} {answers}")
    driver.get(f"{BASE}/console/studies/{STUDY}/data")
    driver.get(f"{BASE}/console/studies/{STUDY}/alerts")
    print("site journey")
finally:
    driver.quit()
