"""A private call from a page: three pages in one channel and the operator console. The first page (USER_A) calls
USER_B from the members list; the second page rings, the third (USER_C) does not; the console lists the call;
the second page answers; the first talks and the second hears it, the third hears nothing; the console shows the
call connected; the first hangs up and both pages are back in the channel.

Arguments: URL USER_A SECRET_A USER_B SECRET_B USER_C SECRET_C CHANNEL ADMIN_URL TOKEN
Prints one JSON line with what each page and the console showed.
"""

import sys

from pttbrowser import emit, launch, log, new_page, sign_in_and_join, sync_playwright, try_wait, wait_for

STATS = "window.pttPage.state.stats"


def main():
    url, user_a, secret_a, user_b, secret_b, user_c, secret_c, channel, admin_url, token = sys.argv[1:11]
    logs = []
    seen = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        a = new_page(browser, logs)
        b = new_page(browser, logs)
        c = new_page(browser, logs)
        console = new_page(browser, logs)
        sign_in_and_join(a, url, user_a, secret_a, channel)
        sign_in_and_join(b, url, user_b, secret_b, channel)
        sign_in_and_join(c, url, user_c, secret_c, channel)
        console.goto(admin_url + "/console")
        console.fill("#token", token)
        console.click("button[type=submit]")
        wait_for(console, "window.pttConsole.ready", what="the console to load")

        wait_for(a, f"document.querySelector('[data-testid=call-{user_b}]') !== null", what="the Call button for B")
        seen["callButtonForSelf"] = a.evaluate(f"document.querySelector('[data-testid=call-{user_a}]') !== null")
        a.click(f"[data-testid=call-{user_b}]")
        wait_for(a, "window.pttPage.state.call && window.pttPage.state.call.info.id !== undefined",
                 what="the call to ring")
        seen["callingA"] = a.inner_text("[data-testid=call-text]")
        wait_for(b, "window.pttPage.state.call && window.pttPage.state.call.phase === 'incoming'",
                 what="the second page to ring")
        seen["incomingB"] = b.inner_text("[data-testid=call-text]")
        seen["answerShownB"] = b.is_visible("[data-testid=call-answer]")
        wait_for(console, "window.pttConsole.calls.length === 1", what="the console to list the call")
        seen["consoleRinging"] = console.inner_text(f"[data-testid=call-phase-{user_a}-{user_b}]")
        seen["ringingC"] = c.evaluate("window.pttPage.state.call !== null")

        b.click("[data-testid=call-answer]")
        for page, name in [(a, "A"), (b, "B")]:
            wait_for(page, "window.pttPage.state.call && window.pttPage.state.call.phase === 'connected'",
                     what=f"page {name} to be in the call")
            seen[f"title{name}"] = page.inner_text("[data-testid=channel-title]")
            seen[f"banner{name}"] = page.inner_text("[data-testid=call-text]")

        heard_b = b.evaluate(f"{STATS}.packetsReceived")
        heard_c = c.evaluate(f"{STATS}.packetsReceived")
        a.evaluate("window.pttPage.press()")
        wait_for(a, "window.pttPage.state.floor === 'granted'", what="the call's floor")
        wait_for(a, f"{STATS}.packetsSent > 40", what="the first page's audio")
        seen["heardB"] = try_wait(b, f"{STATS}.packetsReceived - {heard_b} >= 25", timeout_s=10)
        phase = f"document.querySelector('[data-testid=call-phase-{user_a}-{user_b}]')"
        wait_for(console, f"{phase} && {phase}.textContent.startsWith('connected')",
                 what="the console to show the call connected")
        seen["consoleConnected"] = console.inner_text(f"[data-testid=call-phase-{user_a}-{user_b}]")
        a.evaluate("window.pttPage.release()")
        seen["sentA"] = a.evaluate(f"{STATS}.packetsSent")
        seen["receivedB"] = b.evaluate(f"{STATS}.packetsReceived") - heard_b
        seen["receivedC"] = c.evaluate(f"{STATS}.packetsReceived") - heard_c

        a.click("[data-testid=call-hangup]")
        for page, name in [(a, "A"), (b, "B")]:
            wait_for(page, "window.pttPage.state.call === null", what=f"page {name} to see the call end")
            seen[f"backIn{name}"] = page.inner_text("[data-testid=channel-title]")
        seen["endedB"] = b.inner_text("#floor-note")
        seen["consoleEmpty"] = try_wait(console, "window.pttConsole.calls.length === 0")
        for line in logs[-20:]:
            log(line)
        emit(seen)
        browser.close()


if __name__ == "__main__":
    main()
