"""Screenshots of the portal's main pages for Documentation/portal (run by Scripts/portal-screenshots):

    python screenshots.py SERVER_URL MAIL_SPOOL_DIRECTORY OUTPUT_DIRECTORY

A participant registers, activates, logs in and uses the pages as a person would; each page is
saved at phone width (412 px) and at laptop width (1280 px), the whole page from top to bottom.
"""
import os
import sys

from portal_kit import *  # noqa: F401,F403 (the shared kit: browser, fill, click_and_wait, …)
from selenium.webdriver.common.by import By

OUT = sys.argv[3]


def shoot(driver, name, path=None):
    """Saves the current page (or `path`, opened first) at both widths, whole."""
    if path is not None:
        driver.get(BASE + path)
    for width, suffix in ((412, "phone"), (1280, "laptop")):
        save_whole_page(driver, os.path.join(OUT, f"{name}-{suffix}.png"), width)
    print(f"{name}: {driver.current_url}")


def join_by_id(driver, study, password):
    driver.get(BASE + "/studies")
    for name, value in (("study", study), ("password", password)):
        field = driver.find_element(By.CSS_SELECTOR, f"#join-by-id [name={name}]")
        field.clear()
        field.send_keys(value)
    click_and_wait(driver, driver.find_element(By.ID, "join-by-id-submit"))


def save(driver, **fields):
    for name, value in fields.items():
        element = driver.find_element(By.NAME, name.replace("_", "-"))
        if element.tag_name == "select":
            for option in element.find_elements(By.TAG_NAME, "option"):
                if option.get_attribute("value") == value:
                    option.click()
        elif element.get_attribute("type") in ("date", "datetime-local"):
            # Keystrokes into a date field follow the browser's locale (mm/dd/yyyy); set the value.
            driver.execute_script("arguments[0].value = arguments[1];", element, value)
        else:
            element.clear()
            element.send_keys(value)
    click_and_wait(driver, driver.find_element(By.ID, "save"))


def main():
    driver = browser()
    try:
        fresh(driver, "/login")
        shoot(driver, "login")
        register_and_activate(driver, "mara")
        log_in(driver, "mara")
        join_by_id(driver, "demo", "ulm-2026")
        shoot(driver, "studies")
        shoot(driver, "questionnaires", "/questionnaires")
        links = [a.get_attribute("href") for a in driver.find_elements(By.CSS_SELECTOR, "main a[href^='/questionnaires/']")]
        if links:
            driver.get(links[0])
            shoot(driver, "questionnaire")
        driver.get(BASE + "/record/events/new")
        save(driver, title="ENT appointment", at="2026-11-20T14:30", type="appointment", description="Hearing test and advice")
        driver.get(BASE + "/record/therapies/new")
        save(driver, name="Hearing aids", type="hearing-aid", start="2026-03-01", end="", note="helpful in meetings")
        driver.get(BASE + "/record/audiograms/new")
        levels = {"right_125": "5", "right_250": "10", "right_500": "10", "right_1000": "15", "right_2000": "20",
                  "right_4000": "35", "right_8000": "45", "left_125": "10", "left_250": "15", "left_500": "20",
                  "left_1000": "25", "left_2000": "30", "left_4000": "40", "left_8000": "50"}
        save(driver, date="2026-11-20", note="after the concert", pitchLeft="6000", loudnessLeft="50", **levels)
        shoot(driver, "audiogram")
        shoot(driver, "record", "/record")
        shoot(driver, "events", "/record/events")
        shoot(driver, "data", "/data")
        shoot(driver, "profile", "/profile")
    finally:
        driver.quit()


if __name__ == "__main__":
    main()
