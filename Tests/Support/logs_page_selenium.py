#!/usr/bin/env python3
"""Drives chatcap logs' page in Debian's chromium through chromium-driver and selenium, for
LogsPageBrowserTests: clicks and types as a reader would, and reports what the page showed.

usage: logs_page_selenium.py URL SCREENSHOT_DIR

URL is the page (`http://127.0.0.1:PORT/`) over LogsPageBrowserTests' archive. Steps:
  day       the page as loaded: the latest day of the first channel
  deleted   the line of the deleted message: its classes, text, computed style and marker
  filtered  text typed into the filter box
  user      a login typed into the user box and Enter: that user's month
  link      back to the day, then a click on a user's name: their month, by its link
  older     the day again, then a click on `older`: the day before
Each step records the status line, the lines' texts and the URL's fragment. Screenshots of the
day and of the followed link go to SCREENSHOT_DIR. Prints one JSON object on stdout; an error is
reported as {"error": …} (exit 1). Bounded: each wait is at most 20 s.
"""
import json
import os
import sys

os.environ["SE_OFFLINE"] = "true"  # never let Selenium Manager reach out: the driver is given

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys
from selenium.webdriver.support.ui import WebDriverWait


def main():
    url, shots = sys.argv[1], sys.argv[2]
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     "--no-first-run", "--window-size=1000,600"]:
        options.add_argument(argument)
    driver = webdriver.Chrome(service=Service("/usr/bin/chromedriver"), options=options)
    result = {}
    try:
        wait = WebDriverWait(driver, 20)

        def status_starts(prefix):
            wait.until(lambda d: d.find_element(By.ID, "status").text.startswith(prefix))

        def snapshot():
            return {
                "status": driver.find_element(By.ID, "status").text,
                "lines": [li.text for li in driver.find_elements(By.CSS_SELECTOR, "#lines li")],
                "hash": driver.execute_script("return location.hash"),
            }

        driver.get(url)
        status_starts("#alpha · 2025-11-20")
        result["day"] = snapshot()
        deleted = driver.find_elements(By.CSS_SELECTOR, "#lines li.deleted")
        result["deleted"] = [
            {
                "class": li.get_attribute("class"),
                "text": li.find_element(By.CSS_SELECTOR, ".text").text,
                "decoration": driver.execute_script(
                    "return getComputedStyle(arguments[0]).textDecorationLine", li.find_element(By.CSS_SELECTOR, ".text")),
                "marker": driver.execute_script("return getComputedStyle(arguments[0], '::after').content", li),
            }
            for li in deleted
        ]
        driver.save_screenshot(os.path.join(shots, "logs-page-deleted.png"))

        box = driver.find_element(By.ID, "filter")
        box.send_keys("BAD")
        status_starts("#alpha · 2025-11-20 · 2 of 4")
        result["filtered"] = snapshot()
        box.send_keys(Keys.BACKSPACE * 3)
        status_starts("#alpha · 2025-11-20 · 4 of 4")

        user = driver.find_element(By.ID, "user")
        user.send_keys("Carol", Keys.ENTER)
        status_starts("#alpha · carol")
        result["user"] = snapshot()

        driver.get(url + "#channel=alpha&day=2025-11-20")
        status_starts("#alpha · 2025-11-20")
        link = next(a for a in driver.find_elements(By.CSS_SELECTOR, "#lines a.user") if a.text == "Bob:")
        result["linkHref"] = link.get_attribute("href")
        link.click()
        status_starts("#alpha · bob")
        result["link"] = snapshot()
        driver.save_screenshot(os.path.join(shots, "logs-page-user.png"))

        driver.get(url + "#channel=alpha&day=2025-11-20")
        driver.refresh()
        status_starts("#alpha · 2025-11-20")
        driver.find_element(By.ID, "older").click()
        status_starts("#alpha · 2025-11-19")
        result["older"] = snapshot()
    except Exception as error:  # reported to the test, with what was seen so far
        result["error"] = "%s: %s" % (type(error).__name__, error)
        try:
            result["lastStatus"] = driver.find_element(By.ID, "status").text
        except Exception:
            pass
    finally:
        driver.quit()
    print(json.dumps(result), flush=True)
    return 1 if "error" in result else 0


if __name__ == "__main__":
    sys.exit(main())
