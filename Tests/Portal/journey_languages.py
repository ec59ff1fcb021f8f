"""The trial's languages in a real browser (issue 49): a person whose browser asks for Greek,
then one whose browser asks for Spanish, registers, activates, logs in, joins the study `glossa`
and answers its questionnaire, typing a free-text answer in the language's letters; every page
is in the language (its `lang` attribute and its texts, read from the string tables). Then a
staff member whose browser asks for Dutch enrols in the console and opens the Greek
participant's page, in Dutch. axe-core checks every page.

Run by ConsoleBrowserTests, which sets up the study and the staff member. Arguments: BASE SPOOL.
Prints one line per journey; a failed check exits non-zero.
"""
import glob
import json
import os
import time

from console_kit import *

STUDY = "glossa"
TYPED = {"el": "Βουίζει δυνατά σήμερα, σαν τζιτζίκι στο αυτί", "es": "Zumba fuerte hoy; señal en el oído, ¿mañana?"}
TABLES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "Localization", "Strings")


def t(language, key):
    for path in glob.glob(os.path.join(TABLES, language, "*.json")):
        with open(path, encoding="utf-8") as file:
            table = json.load(file)
        if key in table:
            return table[key]
    raise KeyError(f"{language} has no text {key}")


def in_language(driver, language):
    lang = driver.find_element(By.TAG_NAME, "html").get_attribute("lang")
    check(lang == language, f"{driver.current_url} is in '{lang}', not {language}")


def portal_journey(language, name):
    driver = browser(language)
    try:
        fresh(driver)
        in_language(driver, language)
        check(t(language, "portal.login.title") in text(driver), f"the login page is not in {language}: {text(driver)}")
        register_and_activate(driver, name)
        log_in(driver, name)
        in_language(driver, language)
        driver.get(BASE + "/studies")
        check(t(language, "portal.nav.studies") in text(driver), f"the navigation is not in {language}")
        click_and_wait(driver, driver.find_element(By.ID, f"join-{STUDY}"))
        check("notice=studyJoined" in driver.current_url, f"{name} did not join: {text(driver)}")
        driver.get(f"{BASE}/questionnaires/{STUDY}-daily")
        in_language(driver, language)
        driver.find_element(By.ID, "q0").send_keys("42")
        driver.find_element(By.ID, "q1").send_keys(TYPED[language])
        driver.find_element(By.ID, "q2-0").click()
        click_and_wait(driver, driver.find_element(By.ID, "finish"))
        check(t(language, "portal.notice.questionnaireDone") in text(driver), f"the answer was not sent in {language}: {text(driver)}")
        print(f"{language} portal journey: registered, joined and answered in the language")
    finally:
        driver.quit()


portal_journey("el", "eleni")
portal_journey("es", "elena")

token = api("POST", "/api/v1/account/login", {"login": "eleni", "password": PASSWORD})["accessToken"]
eleni = api("GET", "/api/v1/account/profile", token=token)["pseudonym"]
driver = browser("nl")
try:
    totp, _ = enrol(driver, "dirk@team.example.org")
    sign_in(driver, "dirk@team.example.org", totp.at(time.time() + 30))
    in_language(driver, "nl")
    driver.get(f"{BASE}/console/studies/{STUDY}/participants/{eleni}")
    in_language(driver, "nl")
    heading = driver.find_element(By.TAG_NAME, "h1").text
    check(heading == f"{t('nl', 'console.participant.title')} {eleni}", f"the participant's page is not in Dutch: {heading}")
    print("nl console journey: the Greek participant's page in Dutch")
finally:
    driver.quit()
