"""Questionnaire journeys through the participant portal, in headless Chromium against a real
uniti-server on loopback, with the real `uniti` shell where this build has one. Started by
Tests/EndToEndTests/PortalQuestionnaireBrowserTests.swift:

    python journey_questionnaires.py SERVER_URL MAIL_SPOOL_DIRECTORY

The server has a study `base` with the shared baseline (uniti-case-history, one question at a
time; tinnitus-distress-12, one page) and Track Your Stress's tys-demo-about-you (sliders) and
tys-demo-daily (a showIf). The person registers and activates in the browser, logs in, and joins
the study through the API (the studies page is another page's job).

With $UNITI_PROGRAM (the integrated build): the baseline started in the browser continues in
`uniti baseline`, and a baseline questionnaire the shell started continues in the browser.
Without it (the standalone build has no shell), the browser finishes the baseline itself.
Prints one line per journey; any failed check exits non-zero with the reason.
"""
from portal_kit import *  # noqa: F401,F403 (the shared kit: browser, fill, check, uniti, …)
import json
import tempfile
import urllib.request

from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

NAME = "quinn"
HAS_SHELL = "UNITI_PROGRAM" in os.environ


def api(method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    with urllib.request.urlopen(urllib.request.Request(BASE + path, data=data, method=method, headers=headers)) as response:
        return json.load(response)


def api_token():
    return api("POST", "/api/v1/account/login", {"login": NAME, "password": PASSWORD})["accessToken"]


def sheets_of(questionnaire):
    """The person's finished sheets of a questionnaire on the server, read through the API."""
    page = api("GET", "/api/v1/sheets?perPage=200", token=api_token())
    return [s["sheet"] for s in page["sheets"] if s["sheet"]["questionnaireID"] == questionnaire]


def by_id(driver, element_id):
    return driver.find_element(By.ID, element_id)


def problem(driver, field):
    found = driver.find_elements(By.ID, f"problem-{field}")
    return found[0].text if found else None


def press(driver, button_id):
    click_and_wait(driver, by_id(driver, button_id))


def state(driver, questionnaire):
    driver.get(BASE + "/questionnaires")
    return by_id(driver, f"state-{questionnaire}").text


def journey_start(driver):
    fresh(driver)
    register_and_activate(driver, NAME)
    log_in(driver, NAME)
    joined = api("POST", "/api/v1/studies/base/join", {}, api_token())
    check(joined["membership"] == "member", f"joining the study failed: {joined}")
    driver.get(BASE + "/questionnaires")
    for questionnaire in ("uniti-case-history", "tinnitus-distress-12", "tys-demo-about-you"):
        check(driver.find_elements(By.ID, f"open-{questionnaire}"), f"{questionnaire} is not listed: {text(driver)}")
    check(by_id(driver, "state-uniti-case-history").text == "not started", "the case history is not open")


def journey_baseline_halfway(driver):
    """One question at a time: next without the required answer names it; two answers, then
    "save and continue later" keeps them as the shell's draft."""
    driver.get(BASE + "/questionnaires/uniti-case-history")
    check(by_id(driver, "progress").text == "Question 1 of 8", f"not at the first question: {text(driver)}")
    press(driver, "next")
    check(problem(driver, "q0") == "Please answer this question.", f"no required note beside the item: {text(driver)}")
    by_id(driver, "q0-1").click()
    press(driver, "next")
    check(by_id(driver, "progress").text == "Question 2 of 8", f"next did not move on: {text(driver)}")
    by_id(driver, "q1-3").click()
    press(driver, "back")
    check(by_id(driver, "q0-1").is_selected(), "back lost the first answer")
    driver.get(BASE + "/questionnaires/uniti-case-history?at=1")
    check(by_id(driver, "q1-3").is_selected(), "back lost the second answer")
    press(driver, "save")
    check("Your answers are saved" in text(driver), f"save did not confirm: {text(driver)}")
    check(state(driver, "uniti-case-history") == "started, 2 answer(s) saved", "the list does not show the draft")
    print("baseline halfway journey: required note beside the item, back and next keep answers, saved as a draft")


def journey_baseline_in_shell(driver):
    """The shell continues the browser's draft, finishes the case history, and starts the
    distress scale (two answers, then the input ends: a draft); the browser continues that one."""
    data = tempfile.mkdtemp(prefix="uniti-portal-journey-")
    status, out, err = uniti(data, f"login {NAME}", PASSWORD + "\n")
    check(status == 0, f"the shell could not log in: {out}\n{err}")
    # Resume ("yes"), the six items after age group and gender, then two answers of the distress scale.
    status, out, err = uniti(data, "baseline", "yes\n2\n2\n0\nno\n-\n4\n1\n2\n")
    check("Continue" in out, f"the shell did not continue the browser's draft: {out}\n{err}")
    status, out, err = uniti(data, "sync")
    check(status == 0, f"the shell could not sync: {out}\n{err}")
    sheets = sheets_of("uniti-case-history")
    check(len(sheets) == 1, f"the server holds {len(sheets)} case history sheets, not 1")
    answers = {label: answer["value"] for label, answer in sheets[0]["answers"].items()}
    check(answers.get("age-group") == 1 and answers.get("gender") == 3 and answers.get("worst-symptom") == 4,
          f"the sheet lacks the browser's or the shell's answers: {answers}")
    check(state(driver, "uniti-case-history").startswith("done on"), "the list does not mark the case history done")
    driver.get(BASE + "/questionnaires/uniti-case-history")
    check(by_id(driver, "finished").is_displayed(), "the finished case history is offered again")

    driver.get(BASE + "/questionnaires/tinnitus-distress-12")
    check(by_id(driver, "draft-note").is_displayed(), "the shell's draft is not continued")
    check(by_id(driver, "q1-1").is_selected() and by_id(driver, "q2-2").is_selected(), "the shell's answers are not in the form")
    for index in range(3, 13):
        by_id(driver, f"q{index}-0").click()
    press(driver, "finish")
    check("Thank you, your answers are sent." in text(driver), f"finishing failed: {text(driver)}")
    check(len(sheets_of("tinnitus-distress-12")) == 1, "the distress scale is not stored once")
    status, out, err = uniti(data, "sync")
    check(status == 0, f"the shell could not sync: {out}\n{err}")
    status, out, err = uniti(data, "baseline", "")
    check("Continue" not in out, f"the shell still offers the draft finished in the browser: {out}\n{err}")
    check(len(sheets_of("tinnitus-distress-12")) == 1, "the shell stored the distress scale again")
    print("shell journey: browser draft continued in uniti baseline, shell draft continued in the browser, one sheet each")


def journey_baseline_in_browser(driver):
    """Without a shell: the browser continues its own draft to the end."""
    driver.get(BASE + "/questionnaires/uniti-case-history")
    check(by_id(driver, "progress").text == "Question 3 of 8", f"the draft did not resume at question 3: {text(driver)}")
    for choice in ("q2-2", "q3-2", "q4-0", "q5-1", None, "q7-4"):
        if choice:
            by_id(driver, choice).click()
        press(driver, "next")
    press(driver, "finish")
    check("Thank you, your answers are sent." in text(driver), f"finishing failed: {text(driver)}")
    check(len(sheets_of("uniti-case-history")) == 1, "the case history is not stored once")
    print("browser baseline journey: the draft resumed and finished in the browser, one sheet")


def journey_slider(driver):
    """A slider shows "not answered" until moved; an out-of-range number is named beside it and
    kept; the script moves the value live; the untouched slider is not in the stored sheet; showIf
    shows an item as the person answers."""
    driver.get(BASE + "/questionnaires/tys-demo-about-you")
    check(by_id(driver, "q4-shown").text == "not answered", "the untouched slider does not say it is not answered")
    check(by_id(driver, "q4-range").is_displayed(), "the script did not show the slider")
    check(by_id(driver, "q4").get_attribute("value") == "", "the untouched slider has a value")
    by_id(driver, "q0-2").click()
    by_id(driver, "q1-1").click()
    by_id(driver, "q3").send_keys("150")
    check(by_id(driver, "q3-shown").text == "150", "typing does not show the value")
    press(driver, "finish")
    check(problem(driver, "q3") == "Enter a value from 0 to 100.", f"no range note beside the slider: {text(driver)}")
    check(by_id(driver, "q3").get_attribute("value") == "150", "the typed value was lost")
    check(by_id(driver, "q0-2").is_selected() and by_id(driver, "q1-1").is_selected(), "the other answers were lost")
    check(problem(driver, "q4") is None, "the optional untouched slider is reported")
    slider = by_id(driver, "q3-range")
    slider.send_keys(Keys.END)
    slider.send_keys(Keys.LEFT)
    check(by_id(driver, "q3").get_attribute("value") == "99", "moving the slider does not set the value sent")
    check(by_id(driver, "q3-shown").text == "99", "moving the slider does not show its value")
    check(by_id(driver, "q4-shown").text == "not answered", "the other slider changed")
    press(driver, "finish")
    check("Thank you, your answers are sent." in text(driver), f"finishing failed: {text(driver)}")
    sheets = sheets_of("tys-demo-about-you")
    check(len(sheets) == 1, f"{len(sheets)} sheets stored")
    check(sheets[0]["answers"]["general-stress"]["value"] == 99, f"the moved slider was stored as {sheets[0]['answers']}")
    check("pressure" not in sheets[0]["answers"], "the untouched slider was stored")
    check(sheets[0]["clientVersion"].startswith("uniti-portal "), "the sheet does not name the portal")

    driver.get(BASE + "/questionnaires/tys-demo-daily")
    other = by_id(driver, "item-q5")
    check(not other.is_displayed(), "the conditional item shows before its condition is met")
    by_id(driver, "q4-6").click()
    check(other.is_displayed(), "the script did not show the item when its condition was met")
    by_id(driver, "q4-6").click()
    check(not other.is_displayed(), "the script did not hide the item again")
    print("slider journey: not answered until moved, range note beside the item, live value, untouched slider absent, showIf live")


def main():
    driver = browser()
    try:
        journey_start(driver)
        journey_baseline_halfway(driver)
        if HAS_SHELL:
            journey_baseline_in_shell(driver)
        else:
            journey_baseline_in_browser(driver)
        journey_slider(driver)
    finally:
        driver.quit()


main()
