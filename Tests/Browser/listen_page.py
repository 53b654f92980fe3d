"""A page signs in, joins a channel and listens; reports what it received and decoded.

Arguments: URL USER SECRET CHANNEL READY_FILE EXPECT_PACKETS TIMEOUT_S [drop]
With `drop`, the page's network goes offline after it joined and comes back; the page must reconnect first.
Writes READY_FILE once joined (the Swift test then talks), waits until EXPECT_PACKETS frames are decoded or
TIMEOUT_S passes, then prints one JSON line: the page's stats and the speakers it showed.
"""

import sys
import time

from pttbrowser import emit, launch, log, new_page, sync_playwright, wait_for


def main():
    url, user, secret, channel, ready_file, expect, timeout = sys.argv[1:8]
    drop = len(sys.argv) > 8 and sys.argv[8] == "drop"
    expect, timeout = int(expect), float(timeout)
    logs = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = new_page(browser, logs)
        page.goto(url)
        page.fill("#user", user)
        page.fill("#secret", secret)
        page.click("#signin-button")
        wait_for(page, "window.pttPage.state.connection === 'online'", what="the page to sign in")
        page.fill("#channel-name", channel)
        page.click("#join-button")
        wait_for(page, "window.pttPage.state.screen === 'talk'", what="the page to join")
        wait_for(page, "window.pttPage.state.channel && window.pttPage.state.channel.media", what="media parameters")
        if drop:
            # The network goes away for a moment (Chromium's offline emulation), then comes back: the page
            # notices, reconnects by itself, signs in and joins again.
            page.context.set_offline(True)
            wait_for(page, "window.pttPage.state.connection === 'reconnecting'", what="the page to notice the drop")
            page.context.set_offline(False)
            wait_for(page, "window.pttPage.state.connection === 'online' && window.pttPage.state.screen === 'talk'",
                     timeout_s=20, what="the page to reconnect and join again")
        time.sleep(0.3)  # the gateway's first keep-alives reach the relay (it answers nothing: no event to wait on)
        open(ready_file, "w").close()
        log("joined; waiting for", expect, "frames")
        deadline = time.time() + timeout
        seen_speaker = None
        while time.time() < deadline:
            stats = page.evaluate("window.pttPage.state.stats")
            speaker = page.evaluate("window.pttPage.state.speaker")
            if speaker:
                seen_speaker = speaker
            if stats["framesDecoded"] >= expect:
                break
            time.sleep(0.1)
        time.sleep(0.5)
        stats = page.evaluate("window.pttPage.state.stats")
        shown = page.inner_text("#speaker")
        for line in logs[-20:]:
            log(line)
        emit({"stats": stats, "connection": page.evaluate("window.pttPage.state.connection"), "speakerSeen": seen_speaker, "speakerText": shown,
              "outMeter": page.evaluate("document.getElementById('out-meter').value")})
        browser.close()


main()
