"""A page while pttd stops and starts again on the same data directory and port (issue 23, item 4): the page shows
that the server went away, and once it is back online and in its channel, that message is gone.

Arguments: URL USER SECRET CHANNEL READY_FILE BACK_FILE
Writes READY_FILE once the page is in CHANNEL; the Swift test then stops pttd, starts it again, and writes BACK_FILE
once the new pttd has this page's WebSocket (so "online" below is the new server's, not a moment of the old one's
shutdown). Prints one JSON line.
"""

import pathlib
import sys

from pttbrowser import emit, fail, launch, log, new_page, sign_in_and_join, sync_playwright, try_wait, wait_for


def main():
    url, user, secret, channel, ready, back = sys.argv[1:7]
    logs = []
    seen = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = new_page(browser, logs)
        sign_in_and_join(page, url, user, secret, channel)
        pathlib.Path(ready).write_text("joined")
        wait_for(page, "window.pttPage.state.connection !== 'online'", timeout_s=60, what="the server to go away")
        seen["shownWhileAway"] = page.inner_text("#talk-error") if try_wait(
            page, "document.getElementById('talk-error').textContent.length > 0", timeout_s=5) else ""
        for _ in range(600):  # the Swift test's word that the new pttd has the page, at most 60 s
            if pathlib.Path(back).exists():
                break
            page.wait_for_timeout(100)
        else:
            fail("the Swift test never said the new pttd has the page")
        wait_for(
            page,
            f"window.pttPage.state.connection === 'online' && window.pttPage.state.stats.reconnects >= 1"
            f" && window.pttPage.state.screen === 'talk' && window.pttPage.state.channel !== null",
            timeout_s=60,
            what="the page to be back online in its channel",
        )
        seen["channelAfter"] = page.inner_text("#channel-title")
        seen["errorAfter"] = page.inner_text("#talk-error")
        seen["connectionAfter"] = page.inner_text("#connection")
        for line in logs[-20:]:
            log(line)
        emit(seen)
        browser.close()


main()
