"""Pictures of a language for Documentation/languages (run by Scripts/language-screenshots):

    python language_screenshots.py SERVER_URL MAIL_SPOOL_DIRECTORY OUTPUT_DIRECTORY LANGUAGE SHELL_TEXT

The shell's text (what Scripts/language-screenshots ran) is shown as a terminal does, in a
monospaced font on a dark page; then a participant whose browser asks for LANGUAGE registers,
joins the demo study and opens its questionnaire, each page saved at phone width.
"""
import html
import os
import sys

from portal_kit import *  # noqa: F401,F403 (the shared kit: browser, fill, click_and_wait, …)
from selenium.webdriver.common.by import By

OUT, LANGUAGE, SHELL_TEXT = sys.argv[3], sys.argv[4], sys.argv[5]


def shoot(driver, name, width=412):
    save_whole_page(driver, os.path.join(OUT, f"{name}.png"), width)
    print(f"{name}: {driver.current_url}")


driver = browser(LANGUAGE)
try:
    with open(SHELL_TEXT, encoding="utf-8") as file:
        text_shown = file.read()
    page = os.path.join(os.path.dirname(OUT) or ".", f".shell-{LANGUAGE}.html")
    with open(page, "w", encoding="utf-8") as file:
        file.write(f"""<!doctype html><html lang="{LANGUAGE}"><head><meta charset="utf-8"><title>uniti</title>
<style>body {{ margin: 0; background: #1e1e1e; }} pre {{ margin: 0; padding: 16px; color: #e6e6e6;
font: 14px/1.35 "DejaVu Sans Mono", monospace; white-space: pre-wrap; }}</style></head>
<body><pre>{html.escape(text_shown)}</pre></body></html>""")
    driver.get("file://" + os.path.abspath(page))
    shoot(driver, f"shell-{LANGUAGE}", width=1200)
    os.remove(page)

    fresh(driver)
    shoot(driver, f"portal-login-{LANGUAGE}")
    register_and_activate(driver, "eleni")
    log_in(driver, "eleni")
    driver.get(BASE + "/studies")
    shoot(driver, f"portal-studies-{LANGUAGE}")
    click_and_wait(driver, driver.find_element(By.ID, "join-demo"))
    driver.get(BASE + "/questionnaires/tyt-momentary")
    shoot(driver, f"portal-questionnaire-{LANGUAGE}")
finally:
    driver.quit()
