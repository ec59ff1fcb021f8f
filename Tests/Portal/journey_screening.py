"""Browser journey through a study's screening before joining (issue 48): the studies page leads
to the screening questions; someone not eligible reads the study's words and is not a member;
someone who comes by a site's enrolment link has a missing answer named beside its question with
everything typed kept, then joins at that site. Started by
Tests/EndToEndTests/PortalConductBrowserTests.swift:

    python journey_screening.py SERVER_URL MAIL_SPOOL_DIRECTORY

The server has a public study `screened` with a consent text, a site `ulm` and a screening over
the questionnaire `screen` (age as a slider q0, pulsatile tinnitus yes/no q1, two distress scales
q2 and q3 scored together), made with the coordinator commands. Prints one line per journey; a
failed check exits non-zero.
"""
from portal_kit import *  # noqa: F401,F403 (the shared kit: browser, fill, check, …)

from selenium.webdriver.common.by import By
from selenium.webdriver.support.ui import WebDriverWait


def status(driver):
    return driver.find_element(By.CSS_SELECTOR, "#study-screened .status").text


def open_screening(driver, studies_path):
    driver.get(BASE + studies_path)
    link = driver.find_element(By.ID, "screen-screened")
    check(not driver.find_elements(By.ID, "join-screened"), "a study that screens offers its join form")
    link.click()
    WebDriverWait(driver, 30).until(lambda d: "/studies/screening" in d.current_url, message="the screening page did not open")
    audit(driver)


def answer(driver, age, pulsatile, distress):
    field = driver.find_element(By.ID, "q0")
    field.clear()
    field.send_keys(str(age))
    # A yes/no's first choice is yes, its second no.
    driver.find_element(By.ID, "q1-0" if pulsatile else "q1-1").click()
    for offset, value in enumerate(distress):
        driver.find_element(By.ID, f"q{2 + offset}-{value}").click()


def journey_ineligible(driver):
    """Pulsatile tinnitus excludes: the study's words are shown, nothing is kept, no membership."""
    open_screening(driver, "/studies")
    check("How old are you?" in text(driver), f"the questions are not shown: {text(driver)}")
    answer(driver, 47, True, [3, 2])
    driver.find_element(By.ID, "keep-no").click()
    driver.find_element(By.ID, "screening-consent").click()
    click_and_wait(driver, driver.find_element(By.ID, "screening-submit"))
    shown = driver.find_element(By.ID, "ineligible").text
    check("does not suit you" in shown and "have not been kept" in shown, f"the study's words are not shown: {shown}")
    driver.get(BASE + "/studies")
    check(status(driver) != "member", f"an ineligible person became a member: {status(driver)}")
    print("ineligible journey: told in the study's words, answers not kept, not a member")


def journey_eligible(driver):
    """By the site's link: a missing answer is named beside its question, the rest kept; then joined at the site."""
    open_screening(driver, "/studies?study=screened&site=ulm")
    check("Universitätsklinikum Ulm" in driver.find_element(By.ID, "enrol-site").text, "the site of the link is not named")
    answer(driver, 52, False, [2])
    driver.find_element(By.ID, "screening-consent").click()
    click_and_wait(driver, driver.find_element(By.ID, "screening-submit"))
    check(driver.find_elements(By.ID, "problem-q3"), f"the missing answer is not named: {text(driver)}")
    check(driver.find_element(By.ID, "q0").get_attribute("value") == "52", "the age typed was lost")
    driver.find_element(By.ID, "q3-1").click()
    driver.find_element(By.ID, "screening-consent").click()
    click_and_wait(driver, driver.find_element(By.ID, "screening-submit"))
    check("notice=studyJoined" in driver.current_url, f"joining failed: {driver.current_url} {text(driver)}")
    check(status(driver) == "member", f"the study shows '{status(driver)}' after joining")
    print("eligible journey: a missing answer named with the rest kept, then joined at the site of the link")


driver = browser()
try:
    fresh(driver)
    register_and_activate(driver, "noor")
    log_in(driver, "noor")
    journey_ineligible(driver)
    fresh(driver)
    register_and_activate(driver, "emil")
    log_in(driver, "emil")
    journey_eligible(driver)
finally:
    driver.quit()
