"""What the console journeys share beside portal_kit: a staff member's enrolment and sign-in,
a download with the staff cookie, and the API a participant's app calls. Journey files import it:

    from console_kit import *
"""
import json
import urllib.error
import urllib.request

import pyotp

from portal_kit import *


def enrol(driver, email, on_page=None):
    """Follows the mailed link: password, the secret typed into pyotp, the app's code; returns the
    TOTP and the recovery codes shown once. `on_page(name)` is called on the QR code's page
    (`enrol`) and on the recovery codes' (`recovery-codes`)."""
    driver.delete_all_cookies()
    driver.get(f"{BASE}/console/enrol?code={mailed_code(email)}")
    check(driver.find_elements(By.CSS_SELECTOR, "svg.qr path"), "no QR code on the enrolment page")
    secret = driver.find_element(By.ID, "secret").text.replace(" ", "")
    if on_page:
        on_page("enrol")
    totp = pyotp.TOTP(secret)
    fill(driver, password=PASSWORD, passwordRepeat=PASSWORD, totp=totp.now())
    codes = [element.text for element in driver.find_elements(By.CSS_SELECTOR, "#recovery-codes code")]
    check(len(codes) == 10, f"{email}: no recovery codes after enrolment: {text(driver)}")
    if on_page:
        on_page("recovery-codes")
    return totp, codes


def sign_in(driver, email, code):
    driver.delete_all_cookies()
    driver.get(BASE + "/console/signin")
    fill(driver, email=email, password=PASSWORD, code=code)
    check(driver.current_url == BASE + "/console", f"{email} was not signed in: {text(driver)}")


def download(driver, path):
    """A file the console serves, fetched with the browser's staff cookie: (status, text)."""
    cookie = "; ".join(f"{c['name']}={c['value']}" for c in driver.get_cookies())
    request = urllib.request.Request(BASE + path, headers={"Cookie": cookie})
    try:
        with urllib.request.urlopen(request, timeout=30) as response:
            return response.status, response.read().decode("utf-8")
    except urllib.error.HTTPError as error:
        return error.code, error.read().decode("utf-8")


def api(method, path, body=None, token=None):
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(BASE + path, data=data, headers=headers, method=method)
    with urllib.request.urlopen(request, timeout=30) as response:
        return json.loads(response.read() or b"{}")
