"""A page whose fake microphone plays WAV signs in, joins a channel and holds the talk button.

Arguments: URL USER SECRET CHANNEL WAV HOLD_S
Presses as soon as the page has joined, holds HOLD_S seconds from the grant, releases, and prints one JSON
line: the page's stats and the floor states it went through.
"""

import sys
import time

from pttbrowser import emit, fail, launch, log, new_page, sync_playwright, wait_for


def main():
    url, user, secret, channel, wav, hold = sys.argv[1:7]
    hold = float(hold)
    logs = []
    with sync_playwright() as playwright:
        browser = launch(playwright, wav=wav)
        page = new_page(browser, logs)
        page.goto(url)
        page.fill("#user", user)
        page.fill("#secret", secret)
        page.click("#signin-button")
        wait_for(page, "window.pttPage.state.connection === 'online'", what="the page to sign in")
        page.fill("#channel-name", channel)
        page.click("#join-button")
        wait_for(page, "window.pttPage.state.screen === 'talk'", what="the page to join")
        button = page.locator("[data-testid=talk-button]")
        box = button.bounding_box()
        page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        page.mouse.down()
        pressed = time.time()
        wait_for(page, "window.pttPage.state.floor === 'granted'", what="the floor to be granted")
        granted = time.time()
        talking_text = page.inner_text("#speaker")
        wait_for(page, "window.pttPage.state.stats.packetsSent > 10", what="audio to flow")
        time.sleep(max(0.0, hold - (time.time() - granted)))
        page.mouse.up()
        released = time.time()
        wait_for(page, "window.pttPage.state.floor === 'idle'", what="the floor to be idle after release")
        stats = page.evaluate("window.pttPage.state.stats")
        for line in logs[-20:]:
            log(line)
        if stats["packetsSent"] == 0:
            fail("the page sent no audio")
        emit({"stats": stats, "heldSeconds": released - pressed, "grantSeconds": granted - pressed,
              "talkingText": talking_text, "micMeter": page.evaluate("document.getElementById('mic-meter').value")})
        browser.close()


main()
