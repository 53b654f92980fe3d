"""Scanning from a page: USER's page opens CHANNEL_A, then CHANNEL_B (both its memberships), and ticks CHANNEL_A under
"Also hear" while CHANNEL_B stays open. Then the test's talker speaks on CHANNEL_A: the page hears it and says so.
The console shows the page's membership of CHANNEL_A as scanned.

Arguments: URL USER SECRET CHANNEL_A CHANNEL_B ADMIN_URL TOKEN
Prints one JSON line when the page is ready (`{"ready": true}` on standard error) and one with what it showed.
"""

import sys

from pttbrowser import emit, launch, log, new_page, sign_in_and_join, sync_playwright, try_wait, wait_for


def main():
    url, user, secret, channel_a, channel_b, admin_url, token = sys.argv[1:8]
    logs = []
    seen = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = new_page(browser, logs)
        console = new_page(browser, logs)
        sign_in_and_join(page, url, user, secret, channel_a)
        page.evaluate(f"window.pttPage.join('{channel_b}')")
        wait_for(page, f"window.pttPage.state.channel.name === '{channel_b}'", what=f"{channel_b} to open")
        wait_for(page, f"!!document.querySelector('[data-testid=scan-{channel_a}]')", what="the 'Also hear' tick")
        page.check(f"[data-testid=scan-{channel_a}]")
        wait_for(page, f"window.pttPage.state.scan.channels.includes('{channel_a}')", what="the scan list to be sent")
        seen["openChannel"] = page.evaluate("window.pttPage.state.channel.name")
        console.goto(admin_url + "/console")
        console.fill("#token", token)
        console.click("button[type=submit]")
        wait_for(console, "window.pttConsole.ready", what="the console to load")
        seen["consoleTag"] = try_wait(console, "[...document.querySelectorAll('[data-testid^=scan-]')].some(e => e.textContent === 'scan #2')")
        log("ready")  # the test talks on CHANNEL_A now
        wait_for(page, f"window.pttPage.state.scan.hearing === '{channel_a}'", timeout_s=30.0, what="the switch to the scanned channel")
        seen["note"] = page.inner_text("[data-testid=scan-note]")
        wait_for(page, "window.pttPage.state.stats.packetsReceived >= 20", timeout_s=30.0, what="the scanned channel's audio")
        seen["packetsReceived"] = page.evaluate("window.pttPage.state.stats.packetsReceived")
        for line in logs[-20:]:
            log(line)
        emit(seen)
        browser.close()


if __name__ == "__main__":
    main()
