"""The health record in the browser and in the shell, one person, one server (issue 15).

Records added in the browser reach the shell at its `sync`; a record deleted in the shell
disappears from the page once the shell has synced; an event edited in the browser arrives
edited; a shell event appears in the browser; the audiogram page shows its picture with a size.

Arguments: BASE SPOOL (portal_kit). Environment: UNITI_PROGRAM (the shell), TN_PREFIX (`tn ` for
the integrated `uniti`, empty for the standalone `tinnitus-navigator`, whose commands are bare).
"""
import tempfile

from portal_kit import *

PREFIX = os.environ.get("TN_PREFIX", "tn ")
NAME = "rita"
EMAIL = f"{NAME}@example.org"


def shell(data_dir, command, stdin=""):
    status, out, err = uniti(data_dir, command, stdin)
    check(status == 0, f"'{command}' failed ({status}): {err or out}")
    return out


def tn_json(data_dir, command):
    return json.loads(shell(data_dir, PREFIX + command + " --json"))


def set_fields(driver, **fields):
    """Sets inputs, selects and text areas by name. Through the WebDriver protocol, not a page
    script (the portal's CSP allows none), so a date input takes `YYYY-MM-DD` in any locale."""
    for name, value in fields.items():
        element = driver.find_element(By.NAME, name.replace("_", "-"))
        driver.execute_script("arguments[0].value = arguments[1];", element, value)


def save(driver, **fields):
    set_fields(driver, **fields)
    click_and_wait(driver, driver.find_element(By.ID, "save"))


def entry_id(driver, kind, label):
    """The id of the listed entry whose text contains `label` (from its element id)."""
    for element in driver.find_elements(By.CSS_SELECTOR, f"li.entry[id^='{kind}-']"):
        if label in element.text:
            return element.get_attribute("id")[len(kind) + 1:]
    raise AssertionError(f"no {kind} '{label}' listed: {text(driver)}")


driver = browser()
data = tempfile.mkdtemp(prefix="journey-record-")
try:
    register_and_activate(driver, NAME)
    log_in(driver, NAME)
    shell(data, f"login {EMAIL}", PASSWORD + "\n")

    # Added in the browser: an event, a therapy, an audiogram.
    driver.get(BASE + "/record/events/new")
    save(driver, title="ENT appointment", at="2026-11-20T14:30", type="appointment", description="Dr. Weber")
    check("ENT appointment" in text(driver), f"the event is not listed: {text(driver)}")
    event = entry_id(driver, "event", "ENT appointment")
    driver.get(BASE + "/record/therapies/new")
    save(driver, name="Hearing aids", type="hearing-aid", start="2026-03-01", end="", note="help in meetings")
    therapy = entry_id(driver, "therapy", "Hearing aids")
    check("ongoing" in text(driver), f"the therapy is not marked ongoing: {text(driver)}")
    driver.get(BASE + "/record/audiograms/new")
    levels = {"right_125": "5", "right_250": "10", "right_500": "10", "right_1000": "15", "right_2000": "20",
              "right_4000": "35", "right_8000": "45", "left_125": "10", "left_250": "15", "left_500": "20",
              "left_1000": "25", "left_2000": "30", "left_4000": "40", "left_8000": "50"}
    save(driver, date="2026-11-20", note="after the concert", pitchLeft="6000", loudnessLeft="50", **levels)
    check("/record/audiograms/" in driver.current_url, f"the audiogram did not save: {text(driver)}")
    audiogram = driver.current_url.split("/record/audiograms/")[1].split("?")[0]
    print("browser add journey", flush=True)

    # The audiogram page shows the picture, drawn (an SVG the browser decoded has a natural size).
    picture = driver.find_element(By.ID, "audiogram-picture")
    WebDriverWait(driver, 30).until(lambda d: d.execute_script("return arguments[0].complete;", picture))
    natural = driver.execute_script("return [arguments[0].naturalWidth, arguments[0].naturalHeight];", picture)
    shown = picture.size
    check(natural[0] > 0 and natural[1] > 0, f"the audiogram picture was not drawn: natural size {natural}")
    check(shown["width"] > 0 and shown["height"] > 0, f"the audiogram picture has no size on the page: {shown}")
    # Headless Chromium's narrowest window is 500 px, whatever --window-size asks: check that the
    # picture fits the page instead of a fixed width.
    overflow = driver.execute_script("return document.documentElement.scrollWidth - document.documentElement.clientWidth;")
    column = driver.execute_script("return document.querySelector('main').clientWidth;")
    check(overflow <= 0 and shown["width"] <= column, f"the picture does not fit the page: {shown}, column {column}, overflow {overflow}")
    check("mild hearing loss" in text(driver), f"no grade on the audiogram page: {text(driver)}")
    print("audiogram picture journey", flush=True)

    # The shell gets all three at its sync, as the same records (same ids).
    shell(data, "sync")
    events = tn_json(data, "events")
    check([e["id"] for e in events] == [event] and events[0]["title"] == "ENT appointment", f"events in the shell: {events}")
    check(events[0]["at"].startswith("2026-11-20T14:30"), f"the event's time changed: {events[0]['at']}")
    therapies = tn_json(data, "therapies")
    check([t["id"] for t in therapies] == [therapy] and therapies[0]["ongoing"], f"therapies in the shell: {therapies}")
    audiograms = tn_json(data, "audiograms")
    check([a["id"] for a in audiograms] == [audiogram], f"audiograms in the shell: {audiograms}")
    check(audiograms[0]["pitchLeft"] == 6000, f"the audiogram's values changed: {audiograms[0]}")
    print("shell sync journey", flush=True)

    # Deleted in the shell: gone from the page once the shell has synced.
    shell(data, f"{PREFIX}therapy delete {therapy[:8]} --yes")
    shell(data, "sync")
    driver.get(BASE + "/record/therapies")
    check("Hearing aids" not in text(driver), f"the therapy deleted in the shell is still listed: {text(driver)}")
    driver.get(BASE + f"/record/therapies/{therapy}/edit")
    check("There is no such entry" in text(driver), "the deleted therapy can still be edited")
    print("shell delete journey", flush=True)

    # Edited in the browser: arrives edited, same id.
    driver.get(BASE + f"/record/events/{event}/edit")
    save(driver, title="ENT appointment (moved)", at="2026-11-27T09:00")
    shell(data, "sync")
    events = tn_json(data, "events")
    check([(e["id"], e["title"]) for e in events] == [(event, "ENT appointment (moved)")], f"the edit did not arrive: {events}")
    check(events[0]["at"].startswith("2026-11-27T09:00"), f"the edited time did not arrive: {events[0]['at']}")
    print("browser edit journey", flush=True)

    # Added in the shell: listed in the browser after the shell's sync.
    shell(data, f"{PREFIX}event add --title 'Night attack' --at '2026-11-22 02:10' --type attack")
    shell(data, "sync")
    driver.get(BASE + "/record/events")
    listed = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "li.entry .entry-title")]
    check(listed == ["ENT appointment (moved)", "Night attack"], f"events in the browser (newest first): {listed}")

    # Deleted in the browser, with its confirmation step: gone in the shell after sync.
    night = entry_id(driver, "event", "Night attack")
    driver.get(BASE + f"/record/events/{night}/delete")
    click_and_wait(driver, driver.find_element(By.ID, "confirm-delete"))
    shell(data, "sync")
    check([e["id"] for e in tn_json(data, "events")] == [event], "the event deleted in the browser is still in the shell")
    print("shell add journey", flush=True)
finally:
    driver.quit()
