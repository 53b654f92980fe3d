"""An emergency from a page: two pages in one channel and the operator console. The second page (USER_B, without
the right) is refused; the first (USER_A, with it) declares one; the second page and the console show it; the
console's alert stays until acknowledged; the declarer ends it and both pages say so.

Arguments: URL USER_A SECRET_A USER_B SECRET_B CHANNEL ADMIN_URL TOKEN
Prints one JSON line with what each page and the console showed.
"""

import sys

from pttbrowser import emit, launch, log, new_page, sign_in_and_join, sync_playwright, try_wait, wait_for


def declare(page):
    """Presses Emergency twice, as the page asks (the first press arms it)."""
    page.click("[data-testid=emergency-button]")
    wait_for(page, "document.querySelector('#emergency-button').textContent.startsWith('Press again')",
             what="the emergency button to ask for a second press")
    page.click("[data-testid=emergency-button]")


def main():
    url, user_a, secret_a, user_b, secret_b, channel, admin_url, token = sys.argv[1:9]
    logs = []
    seen = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        a = new_page(browser, logs)
        b = new_page(browser, logs)
        console = new_page(browser, logs)
        sign_in_and_join(a, url, user_a, secret_a, channel)
        sign_in_and_join(b, url, user_b, secret_b, channel)
        console.goto(admin_url + "/console")
        console.fill("#token", token)
        console.click("button[type=submit]")
        wait_for(console, "window.pttConsole.ready", what="the console to load")

        declare(b)
        wait_for(b, "document.querySelector('#talk-error').textContent !== ''", what="the refusal")
        seen["refusal"] = b.inner_text("#talk-error")
        seen["bannerAfterRefusal"] = not b.is_hidden("[data-testid=emergency-banner]")

        declare(a)
        wait_for(a, "window.pttPage.state.channel.emergency !== null", what="the declaration on the first page")
        seen["bannerA"] = a.inner_text("[data-testid=emergency-text]")
        seen["clearShownA"] = a.is_visible("[data-testid=emergency-clear]")
        wait_for(b, "window.pttPage.state.channel.emergency !== null", what="the second page to be told")
        seen["bannerB"] = b.inner_text("[data-testid=emergency-text]")
        seen["clearShownB"] = b.is_visible("[data-testid=emergency-clear]")

        wait_for(console, f"window.pttConsole.alerts.includes('{channel}')", what="the console's alert")
        seen["alert"] = console.inner_text(f"[data-testid=alert-{channel}]")
        seen["tag"] = console.inner_text(f"[data-testid=emergency-{channel}]")
        # The alert stays across polls until acknowledged.
        polls = console.evaluate("window.pttConsole.polls")
        wait_for(console, f"window.pttConsole.polls >= {polls + 2}", what="two more polls")
        seen["alertAfterPolls"] = console.is_visible(f"[data-testid=alert-{channel}]")
        console.click(f"[data-testid=acknowledge-{channel}]")
        seen["alertAcknowledged"] = try_wait(console, f"!document.querySelector('[data-testid=alert-{channel}]')")
        seen["tagAfterAcknowledge"] = console.is_visible(f"[data-testid=emergency-{channel}]")

        a.click("[data-testid=emergency-clear]")
        wait_for(b, "window.pttPage.state.channel.emergency === null", what="the second page to see the end")
        seen["endedB"] = b.inner_text("#floor-note")
        seen["bannerHiddenB"] = b.is_hidden("[data-testid=emergency-banner]")
        seen["consoleCleared"] = try_wait(console, f"!document.querySelector('[data-testid=emergency-{channel}]')")
        for line in logs[-20:]:
            log(line)
        emit(seen)
        browser.close()


if __name__ == "__main__":
    main()
