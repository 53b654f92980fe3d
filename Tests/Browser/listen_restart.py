"""A page listens to two bursts with a restart of pttd between them; reports what it decoded before and after.

Arguments: URL USER SECRET CHANNEL DIRECTORY EXPECT_PACKETS TIMEOUT_S
Steps, each told to the Swift test by a file in DIRECTORY:
1. signs in, joins, writes `ready`; waits until EXPECT_PACKETS frames are decoded (the first burst), then until the
   page shows "Channel idle"; reads the level meter until it has fallen to zero and stayed there for a second (5 s at most), and writes `heard`;
2. waits until the page has reconnected to the restarted pttd and joined again, writes `ready-again`;
3. waits until EXPECT_PACKETS more frames are decoded, or TIMEOUT_S passes.
Prints one JSON line: the stats after each burst, the meter under "Channel idle", the speaker text then.
"""

import os
import sys
import time

from pttbrowser import emit, launch, log, new_page, sync_playwright, wait_for

STATS = "window.pttPage.state.stats"
SETTLED_S = 1.0


def decoded_at_least(page, count, timeout):
    deadline = time.time() + timeout
    while time.time() < deadline and page.evaluate(f"{STATS}.framesDecoded") < count:
        time.sleep(0.1)


def main():
    url, user, secret, channel, directory, expect, timeout = sys.argv[1:8]
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
        wait_for(page, "window.pttPage.state.screen === 'talk' && window.pttPage.state.channel.media",
                 what="the page to join")
        time.sleep(0.3)  # the gateway's first keep-alives reach the relay (it answers nothing: no event to wait on)
        open(os.path.join(directory, "ready"), "w").close()

        decoded_at_least(page, expect, timeout)
        wait_for(page, "window.pttPage.state.speaker === null", timeout_s=timeout, what="the first burst's end")
        idle_text = page.inner_text("#speaker")
        # The meter must fall to zero once the burst has been played (at most the jitter buffer's 0.5 s) and stay
        # there. It also reads zero for a moment when the playback runs dry inside a burst (an underrun: on a loaded
        # machine the last frames can come late, and `floor-idle` before them), so it counts as fallen only once it
        # has read zero for SETTLED_S, longer than the cushion a late frame waits in; 5 s at most.
        idle = time.time()
        meter = "document.getElementById('out-meter').value"
        last_sound = idle
        while time.time() < idle + 5:
            now = time.time()
            if page.evaluate(meter) > 0:
                last_sound = now
            elif now - last_sound >= SETTLED_S:
                break
            time.sleep(0.05)
        idle_meter = page.evaluate(meter)
        idle_meter_seconds = last_sound - idle
        first = page.evaluate(STATS)
        open(os.path.join(directory, "heard"), "w").close()
        log("first burst:", first["framesDecoded"], "decoded; meter under", repr(idle_text), idle_meter,
            f"after {idle_meter_seconds:.2f} s")

        wait_for(page, f"{STATS}.reconnects >= 1", timeout_s=30, what="the page to notice the restart")
        wait_for(page, "window.pttPage.state.connection === 'online' && window.pttPage.state.screen === 'talk'"
                       " && window.pttPage.state.channel && window.pttPage.state.channel.media",
                 timeout_s=30, what="the page to reconnect and join again")
        time.sleep(0.3)  # the keep-alives again
        open(os.path.join(directory, "ready-again"), "w").close()

        decoded_at_least(page, first["framesDecoded"] + expect, timeout)
        time.sleep(0.5)
        second = page.evaluate(STATS)
        for line in logs[-20:]:
            log(line)
        emit({"first": first, "second": second, "idleText": idle_text, "idleMeter": idle_meter,
              "idleMeterSeconds": idle_meter_seconds,
              "connection": page.evaluate("window.pttPage.state.connection")})
        browser.close()


main()
