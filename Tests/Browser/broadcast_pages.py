"""A broadcast from a page: USER_A's page in CHANNEL_A ticks "Talk to every channel" and holds the talk button;
USER_B's page in CHANNEL_B shows the broadcast (banner, speaker) and its floor refused; the operator console lists
it; when USER_A lets go, both go.

Arguments: URL USER_A SECRET_A CHANNEL_A USER_B SECRET_B CHANNEL_B ADMIN_URL TOKEN
Prints one JSON line with what each page and the console showed.
"""

import sys

from pttbrowser import emit, launch, log, new_page, sign_in_and_join, sync_playwright, try_wait, wait_for


def main():
    url, user_a, secret_a, channel_a, user_b, secret_b, channel_b, admin_url, token = sys.argv[1:10]
    logs = []
    seen = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        a = new_page(browser, logs)
        b = new_page(browser, logs)
        console = new_page(browser, logs)
        sign_in_and_join(b, url, user_b, secret_b, channel_b)
        sign_in_and_join(a, url, user_a, secret_a, channel_a)
        console.goto(admin_url + "/console")
        console.fill("#token", token)
        console.click("button[type=submit]")
        wait_for(console, "window.pttConsole.ready", what="the console to load")

        a.check("[data-testid=broadcast-all]")
        a.evaluate("window.pttPage.press()")
        wait_for(a, "window.pttPage.state.floor === 'granted'", what="the broadcaster's grant")
        wait_for(a, "window.pttPage.state.channel.broadcast !== null && window.pttPage.state.channel.broadcast !== undefined",
                 what="the broadcaster's broadcast-started")
        seen["bannerA"] = a.inner_text("[data-testid=broadcast-text]")
        wait_for(b, "!!window.pttPage.state.channel.broadcast", what="the other channel's page to be told")
        seen["bannerB"] = b.inner_text("[data-testid=broadcast-text]")
        seen["speakerB"] = b.inner_text("#speaker")
        b.evaluate("window.pttPage.press()")
        wait_for(b, "window.pttPage.state.floor === 'denied'", what="the other page's floor to be refused")
        seen["deniedB"] = b.inner_text("#floor-note")
        b.evaluate("window.pttPage.release()")
        wait_for(console, f"!!document.querySelector('[data-testid=broadcast-{user_a}]')", what="the console's row")
        seen["consoleChannels"] = console.inner_text(f"[data-testid=broadcast-channels-{user_a}]")

        a.evaluate("window.pttPage.release()")
        seen["bannerGoneB"] = try_wait(b, "!window.pttPage.state.channel.broadcast")
        seen["bannerHiddenB"] = b.is_hidden("[data-testid=broadcast-banner]")
        seen["consoleGone"] = try_wait(console, f"!document.querySelector('[data-testid=broadcast-{user_a}]')")
        for line in logs[-20:]:
            log(line)
        emit(seen)
        browser.close()


if __name__ == "__main__":
    main()
