"""The staff console journey (issue 31), in headless Chromium against a real uniti-server:

an administrator enrols (password, TOTP from the QR code's secret, recovery codes) and creates a
study with an owner; the owner enrols with codes from pyotp, enables modules, uploads a
questionnaire with an error (listed by path), fixes it, previews it (the portal's form with
the shell's lines beside it) and submits the preview
(checked, nothing stored), deactivates and activates it, sets its completion window (a new
version), sets the prompt windows per weekday and a gap and reads the week's preview, makes a
safety alert rule, publishes the consent text, and invites a viewer; a participant joins after agreeing to it and sends a sheet through the API (as an app does); the owner sees
the member, exports the CSV with its codebook and reads both back; the participant answers above
the rule's threshold, the alert mail arrives within a minute and its link opens the participant's
page, where the alert is marked seen with a note; the viewer accepts the
invitation in the console and is refused the export; the owner of another study reaches nothing
of this one by URL (every study page tried); the audit trail holds each step.

Run by ConsoleBrowserTests, which adds the staff (`uniti-server staff add`) and the other study
first. Arguments: BASE SPOOL. With CONSOLE_SCREENSHOTS=DIR it also saves the pages it passes, at
tablet (820 px) and laptop (1280 px) width, for Documentation/console.
"""
import csv
import glob
import io
import json
import os
import re
import time
import uuid

import pyotp
from selenium.webdriver.support.ui import Select

from console_kit import *
from console_kit import enrol as console_enrol

STUDY = "journey"
SHOTS = os.environ.get("CONSOLE_SCREENSHOTS")
BROKEN = {
    "id": "journey-daily", "version": 1, "title": {"en": "Daily <b>check</b>"}, "kind": "oneTime",
    "items": [{"type": "slider", "label": "loudness", "required": True, "text": {"en": "How loud?"},
               "min": 100, "max": 0, "step": 1}],
}


def shoot(driver, name):
    """Saves the page at tablet and laptop width, whole, when CONSOLE_SCREENSHOTS names a folder."""
    if not SHOTS:
        return
    for width, suffix in ((820, "tablet"), (1280, "laptop")):
        driver.set_window_size(width, 900)
        height = driver.execute_script("return document.documentElement.scrollHeight")
        driver.set_window_size(width, max(600, min(int(height) + 40, 6000)))
        driver.save_screenshot(os.path.join(SHOTS, f"{name}-{suffix}.png"))
    driver.set_window_size(412, 915)


def enrol(driver, email):
    """``console_kit.enrol``, saving the enrolment pages of the administrator."""
    return console_enrol(driver, email, on_page=(lambda name: shoot(driver, name)) if email.startswith("ada") else None)


driver = browser()
try:
    # The administrator enrols and creates the study with its owner.
    _, ada_codes = enrol(driver, "ada@team.example.org")
    sign_in(driver, "ada@team.example.org", ada_codes[0])
    fill_form = {"id": STUDY, "title": "Journey study", "owner": "olga@team.example.org"}
    for name, value in fill_form.items():
        driver.find_element(By.NAME, name).send_keys(value)
    click_and_wait(driver, driver.find_element(By.ID, "create-study"))
    check(driver.current_url == f"{BASE}/console/studies/{STUDY}", f"the study was not created: {text(driver)}")
    driver.get(BASE + "/console")
    shoot(driver, "studies")
    print("admin journey")

    # The owner enrols with pyotp's codes and signs in with the next one.
    olga_totp, olga_codes = enrol(driver, "olga@team.example.org")
    sign_in(driver, "olga@team.example.org", olga_totp.at(time.time() + 30))
    driver.get(f"{BASE}/console/studies/{STUDY}/settings")
    for module in ("tyt", "tys"):
        box = driver.find_element(By.ID, f"module-{module}")
        if not box.is_selected():
            box.click()
    if not driver.find_element(By.ID, "running").is_selected():
        driver.find_element(By.ID, "running").click()
    click_and_wait(driver, driver.find_element(By.ID, "save"))
    check("saved" in driver.current_url, f"the settings were not saved: {text(driver)}")
    shoot(driver, "settings")

    # A questionnaire with an error: listed by path, nothing stored; then fixed.
    driver.get(f"{BASE}/console/studies/{STUDY}/questionnaires")
    driver.find_element(By.ID, "definition").send_keys(json.dumps(BROKEN))
    click_and_wait(driver, driver.find_element(By.ID, "upload"))
    check("items[0].max: must be greater than min" in text(driver), f"the problem is not listed by path: {text(driver)}")
    shoot(driver, "questionnaire-problems")
    fixed = dict(BROKEN, items=[dict(BROKEN["items"][0], min=0, max=100)])
    area = driver.find_element(By.ID, "definition")
    area.clear()
    area.send_keys(json.dumps(fixed))
    click_and_wait(driver, driver.find_element(By.ID, "upload"))
    check("Daily <b>check</b>" in text(driver), f"the title with markup is not shown as text: {text(driver)}")
    driver.get(f"{BASE}/console/studies/{STUDY}/questionnaires/journey-daily/preview")
    check("How loud?" in text(driver) and "Daily <b>check</b>" in text(driver), f"the preview: {text(driver)}")
    # Beside the form, the question as the uniti shell prints it (a page: "- for later").
    shell = driver.find_element(By.ID, "shell-text")
    check(shell.tag_name == "pre" and "How loud? * (0–100, - for later)" in shell.text,
          f"the shell's lines: {shell.text!r}")
    form = driver.find_element(By.CSS_SELECTOR, "form.questionnaire")
    for width, beside in ((1280, True), (820, False)):
        driver.set_window_size(width, 900)
        left, right = form.rect, shell.rect
        side_by_side = right["x"] >= left["x"] + left["width"] and right["y"] < left["y"] + left["height"]
        below = right["y"] >= left["y"] + left["height"]
        check(side_by_side if beside else below, f"at {width} px the shell's lines are not {'beside' if beside else 'below'} "
                                                  f"the form: form {left}, lines {right}")
    driver.set_window_size(412, 915)
    shoot(driver, "questionnaire-preview")
    driver.find_element(By.NAME, "q0").send_keys("40")
    click_and_wait(driver, driver.find_element(By.ID, "finish"))
    check("loudness = 40" in text(driver) and "Nothing was stored" in text(driver), f"the preview's submission: {text(driver)}")
    driver.get(f"{BASE}/console/studies/{STUDY}/questionnaires")
    click_and_wait(driver, driver.find_element(By.ID, "deactivate-journey-daily"))
    click_and_wait(driver, driver.find_element(By.ID, "activate-journey-daily"))

    # The completion window, field by field: a wrong value named beside its field, then a right one.
    click_and_wait(driver, driver.find_element(By.ID, "settings-journey-daily"))
    window = driver.find_element(By.ID, "completionWindow")
    window.send_keys("2000")  # past the field's max: the form leaves the check to the server (novalidate), which names it
    click_and_wait(driver, driver.find_element(By.ID, "save-settings"))
    check(driver.find_elements(By.ID, "error-completionWindow"), f"the wrong window is not named: {text(driver)}")
    window = driver.find_element(By.ID, "completionWindow")
    window.clear()
    window.send_keys("30")
    click_and_wait(driver, driver.find_element(By.ID, "save-settings"))
    check("notice=questionnaireUpdated" in driver.current_url, f"the window was not saved: {text(driver)}")
    shoot(driver, "questionnaire-settings")

    # When prompts come: four a day, on weekdays 08:00-22:00 and on Saturday 10:00-22:00, none on
    # Sunday, at least 45 minutes apart; the preview draws the week with the devices' planner.
    driver.get(f"{BASE}/console/studies/{STUDY}/questionnaires/journey-daily/settings")
    Select(driver.find_element(By.ID, "frequency")).select_by_value("daily")
    Select(driver.find_element(By.ID, "timing")).select_by_value("between")
    days = {day: ("08:00", "22:00") for day in ("mon", "tue", "wed", "thu", "fri")}
    days.update(sat=("10:00", "22:00"), sun=("", ""))
    for day, (start, end) in days.items():
        for field, value in ((f"from-{day}", start), (f"to-{day}", end)):
            box = driver.find_element(By.ID, field)
            box.clear()
            box.send_keys(value)
    for field, value in (("amount", "4"), ("gap", "45")):
        box = driver.find_element(By.ID, field)
        box.clear()
        box.send_keys(value)
    click_and_wait(driver, driver.find_element(By.ID, "save-settings"))
    check("notice=questionnaireUpdated" in driver.current_url, f"the windows were not saved: {text(driver)}")
    week = [row.find_elements(By.TAG_NAME, "td") for row in driver.find_elements(By.CSS_SELECTOR, "#preview tbody tr")]
    check(len(week) == 7, f"the preview has not one week: {text(driver)}")
    for cells in week:
        times = [t for t in cells[2].text.split(", ") if ":" in t]
        if cells[1].text == "Sunday":
            check(not times, f"prompts on a Sunday without a window: {cells[2].text}")
            continue
        minutes = sorted(int(t[:2]) * 60 + int(t[3:]) for t in times)
        first = 600 if cells[1].text == "Saturday" else 480
        check(len(minutes) == 4 and minutes[0] >= first and minutes[-1] <= 1320
              and all(b - a >= 45 for a, b in zip(minutes, minutes[1:])), f"the preview's {cells[1].text}: {cells[2].text}")
    shoot(driver, "questionnaire-windows")

    # A safety rule: a loudness of 80 or more is mailed to the owners, who look at every one.
    driver.get(f"{BASE}/console/studies/{STUDY}/alerts")
    driver.find_element(By.ID, "rule-name").send_keys("Very loud")
    Select(driver.find_element(By.ID, "rule-kind")).select_by_value("safety")
    Select(driver.find_element(By.ID, "rule-target")).select_by_value("journey-daily|item|loudness")
    Select(driver.find_element(By.ID, "rule-comparison")).select_by_value("atLeast")
    driver.find_element(By.ID, "rule-threshold").send_keys("80")
    driver.find_element(By.ID, "rule-reviewed").click()
    click_and_wait(driver, driver.find_element(By.ID, "add-rule"))
    check("notice=alertRuleAdded" in driver.current_url and "Very loud" in text(driver), f"the rule was not saved: {text(driver)}")
    shoot(driver, "alerts")

    # The consent text, published as version 1.
    driver.get(f"{BASE}/console/studies/{STUDY}/consent")
    driver.find_element(By.ID, "consent-en").send_keys("We keep your answers for the study.")
    click_and_wait(driver, driver.find_element(By.ID, "publish-consent"))
    check(driver.find_elements(By.ID, "consent-version-1"), f"the consent was not published: {text(driver)}")
    shoot(driver, "consent")
    # Two sites, added on the team page (the UNITI trial had five centres).
    for site, name, country, language in (("ulm", "Universitätsklinikum Ulm", "DE", "de"), ("athens", "Athens", "GR", "el")):
        driver.get(f"{BASE}/console/studies/{STUDY}/team")
        driver.find_element(By.ID, "site-id").send_keys(site)
        driver.find_element(By.ID, "site-name").send_keys(name)
        driver.find_element(By.ID, "site-country").send_keys(country)
        driver.find_element(By.ID, "site-language").send_keys(language)
        click_and_wait(driver, driver.find_element(By.ID, "save-site"))
        check("notice=siteSaved" in driver.current_url and name in text(driver), f"the site was not saved: {text(driver)}")
    driver.get(f"{BASE}/console/studies/{STUDY}/team")
    driver.find_element(By.ID, "email").send_keys("vic@team.example.org")
    driver.find_element(By.ID, "name").send_keys("Vic")
    click_and_wait(driver, driver.find_element(By.ID, "add-member"))
    check(driver.find_elements(By.ID, "invited"), f"the viewer is not listed as invited: {text(driver)}")
    print("owner set-up journey")

    # A participant joins and sends a sheet, as an app does.
    api("POST", "/api/v1/account/register", {"username": "pat", "email": "pat@example.org", "password": PASSWORD})
    api("POST", "/api/v1/account/activate", {"token": mailed_code("pat@example.org")})
    token = api("POST", "/api/v1/account/login", {"login": "pat", "password": PASSWORD})["accessToken"]
    api("POST", f"/api/v1/studies/{STUDY}/join", {"consentVersion": 1, "site": "ulm"}, token)
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    api("POST", "/api/v1/sheets", {"sheets": [{
        "id": str(uuid.uuid4()), "questionnaireID": "journey-daily", "questionnaireVersion": 1, "isPartial": False,
        "answers": {"loudness": {"value": 42, "answeredAt": started}}, "startedAt": started, "endedAt": started,
        "clientVersion": "journey 1"}]}, token)

    # The owner sees the member and exports the CSV with its codebook.
    driver.get(f"{BASE}/console/studies/{STUDY}/participants")
    shoot(driver, "participants")
    check("pat@example.org" not in text(driver) and "pat" not in text(driver).split(), "an address or name on the page")
    # The participant's own page (axe checks it as it opens): standing, consent, devices, 14 days of prompts.
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, "#participants tbody a"))
    check(len(driver.find_elements(By.CSS_SELECTOR, "#heat-map span")) == 14, f"the participant page has no 14-day heat-map: {text(driver)}")
    check("pat@example.org" not in text(driver), "an address on the participant's page")
    shoot(driver, "participant")
    driver.get(f"{BASE}/console/studies/{STUDY}")
    check(driver.find_element(By.ID, "sheets").text == "1", f"the overview does not count the sheet: {text(driver)}")
    shoot(driver, "overview")
    driver.get(f"{BASE}/console/studies/{STUDY}/data")
    shoot(driver, "data")
    driver.get(f"{BASE}/console/studies/{STUDY}/team")
    shoot(driver, "team")
    status, answers = download(driver, f"/console/studies/{STUDY}/data/export?format=csv")
    rows = list(csv.DictReader(io.StringIO(answers)))
    check(status == 200 and [(r["label"], r["value"], r["site"]) for r in rows] == [("loudness", "42", "ulm")], f"export: {status} {answers}")
    status, codebook = download(driver, f"/console/studies/{STUDY}/data/codebook.csv")
    entries = list(csv.DictReader(io.StringIO(codebook)))
    check(status == 200 and entries[0]["label"] == "loudness" and entries[0]["type"] == "slider", f"codebook: {codebook}")
    print("export journey")

    # The participant answers above the threshold: within a minute the owner has a mail naming the
    # pseudonym and the rule, no answer; its link opens the participant's page, where the alert is
    # marked seen with a note.
    started = time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())
    api("POST", "/api/v1/sheets", {"sheets": [{
        "id": str(uuid.uuid4()), "questionnaireID": "journey-daily", "questionnaireVersion": 1, "isPartial": False,
        "answers": {"loudness": {"value": 91, "answeredAt": started}}, "startedAt": started, "endedAt": started,
        "clientVersion": "journey 1"}]}, token)
    sent = time.monotonic()
    alert = None
    while alert is None and time.monotonic() - sent < 60:
        for path in glob.glob(os.path.join(SPOOL, "*.eml")):
            mail = open(path, encoding="utf-8").read()
            if "To: olga@team.example.org" in mail and "Subject: UNITI alert: Very loud" in mail:
                alert = mail
        time.sleep(0.5)
    check(alert is not None, "no alert mail within a minute of the sheet")
    print(f"alert mailed {time.monotonic() - sent:.1f} s after the sheet")
    # The value as a word of its own: the link's port and the hex pseudonym may hold the digits "91".
    prose = [line for line in alert.split("\n\n", 1)[1].splitlines() if "/participants/" not in line]
    check(not any(re.search(r"\b91\b", line) for line in prose), f"an answer value in the alert mail: {alert}")
    link = next(line for line in alert.splitlines() if "/participants/" in line).strip()
    driver.get(link if link.startswith("http") else BASE + link)
    check("Very loud" in text(driver), f"the participant's page shows no alert: {text(driver)}")
    note = driver.find_element(By.CSS_SELECTOR, ".alert textarea")
    note.send_keys("Phoned; the hearing aid had been turned up.")
    click_and_wait(driver, driver.find_element(By.CSS_SELECTOR, ".alert button"))
    check("notice=alertSeen" in driver.current_url and "Phoned; the hearing aid" in text(driver), f"not marked seen: {text(driver)}")
    shoot(driver, "participant-alert")
    driver.get(f"{BASE}/console/studies/{STUDY}")
    check(driver.find_element(By.ID, "open-alerts").text == "0", f"the overview still counts the alert: {text(driver)}")
    print("alert journey")

    # The viewer accepts the invitation, and is refused the export.
    _, vic_codes = enrol(driver, "vic@team.example.org")
    sign_in(driver, "vic@team.example.org", vic_codes[0])
    click_and_wait(driver, driver.find_element(By.ID, f"accept-{STUDY}"))
    check(driver.find_elements(By.ID, f"study-{STUDY}"), f"the accepted invitation lists no study: {text(driver)}")
    status, _ = download(driver, f"/console/studies/{STUDY}/data/export?format=csv")
    check(status == 403, f"the viewer's export answered {status}")
    driver.get(f"{BASE}/console/studies/{STUDY}/data")
    check(driver.find_elements(By.ID, "no-export"), "the data page offers the viewer an export")

    # The owner of another study reaches nothing of this one.
    _, sam_codes = enrol(driver, "sam@team.example.org")
    sign_in(driver, "sam@team.example.org", sam_codes[0])
    for page in ("", "/participants", "/settings", "/questionnaires", "/data", "/data/export?format=csv",
                 "/data/codebook.csv", "/data/answers.sps", "/data/adherence.csv", "/questionnaires/journey-daily/preview",
                 "/questionnaires/journey-daily/settings", "/consent", "/alerts", "/team", "/audit"):
        status, body = download(driver, f"/console/studies/{STUDY}{page}")
        check(status == 404 and "Journey study" not in body, f"another study's owner reached {page}: {status}")
    print("roles journey")

    # The audit trail holds every step (the owner's code of the next step is spent: a recovery code).
    sign_in(driver, "olga@team.example.org", olga_codes[0])
    driver.get(f"{BASE}/console/studies/{STUDY}/audit")
    actions = [row.find_elements(By.TAG_NAME, "td")[2].text for row in driver.find_elements(By.CSS_SELECTOR, "#audit tbody tr")]
    expected = ["study.create", "team.set", "study.update", "questionnaire.add", "questionnaire.deactivate",
                "questionnaire.activate", "questionnaire.update", "questionnaire.update", "alertRule.add", "study.update",
                "site.add", "site.add", "team.invite", "participant.join", "site.assign", "export", "export", "alert.raise",
                "alert.mail", "alert.seen", "team.accept"]
    check(actions == expected, f"the audit trail is {actions}")
    shoot(driver, "audit")
    print("audit journey")
finally:
    driver.quit()
