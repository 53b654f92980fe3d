"""What a new user reads on the page (issue 23, item 8), on a laptop and on a phone.

Arguments: LINK_URL URL DIR PLAIN_CHANNEL RECORDED_CHANNEL
  1. A laptop opens the sign-in link: which channels it offers. A fresh profile opens URL: the sign-in screen's text.
  2. The laptop joins PLAIN_CHANNEL (not recorded) from what it offers: the space-bar hint, the replay button, the
     connection badge. It holds the button and writes DIR/granted (its member id); the Swift test revokes the floor:
     the note and the button while still held. It lets go and writes DIR/released; the test kicks it: the message.
  3. A phone (touch only) with the same credential joins RECORDED_CHANNEL: the hint and the replay button there.
Prints one JSON line with the texts and attributes seen.
"""

import json
import pathlib
import sys

from pttbrowser import emit, launch, log, new_page, sync_playwright, try_wait, wait_for, write_signal

VISIBLE = """(selector) => {
  const element = document.querySelector(selector);
  return !!element && element.offsetParent !== null && getComputedStyle(element).visibility !== 'hidden';
}"""


def main():
    link, url, directory, plain, recorded = sys.argv[1:6]
    logs = []
    seen = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        laptop = new_page(browser, logs)
        laptop.goto(link)
        wait_for(laptop, "window.pttPage.state.connection === 'online' && window.pttPage.state.screen === 'channels'",
                 what="the link to sign the laptop in")
        try_wait(laptop, "document.querySelectorAll('#membership-list button').length > 0", timeout_s=3)
        seen["offered"] = laptop.evaluate(
            "[...document.querySelectorAll('#membership-list button')].map(b => b.textContent)"
        )
        seen["channelsScreen"] = laptop.inner_text("#channels")

        fresh = new_page(browser, logs)
        fresh.goto(url)
        wait_for(fresh, "window.pttPage.state.screen === 'signin'", what="the sign-in screen")
        seen["signinScreen"] = fresh.inner_text("#signin")
        fresh.context.close()

        offered = laptop.locator("#membership-list button", has_text=plain)
        if offered.count() > 0:
            offered.first.click()
        else:
            laptop.fill("#channel-name", plain)
            laptop.click("#join-button")
        wait_for(laptop, "window.pttPage.state.screen === 'talk'", what="the laptop to join")
        seen["hintVisibleLaptop"] = laptop.evaluate(VISIBLE, ".talk-hint")
        seen["replayVisiblePlain"] = laptop.evaluate(VISIBLE, "#replay-button")
        seen["badgeLive"] = laptop.get_attribute("#connection", "aria-live")
        seen["badgeRole"] = laptop.get_attribute("#connection", "role")

        laptop.locator("#talk-button").hover()
        laptop.mouse.down()
        wait_for(laptop, "window.pttPage.state.floor === 'granted'", what="the laptop's grant")
        left_channel = laptop.evaluate("window.pttPage.state.channel.id")
        write_signal(pathlib.Path(directory, "granted"), laptop.evaluate("window.pttPage.state.channel.member.id"))
        wait_for(laptop, "window.pttPage.state.floor === 'revoked'", timeout_s=30, what="the operator's revoke")
        seen["revokedNote"] = laptop.inner_text("#floor-note")
        seen["revokedButton"] = laptop.inner_text("#talk-button .talk-label")
        seen["revokedClass"] = laptop.get_attribute("#talk-button", "class")
        laptop.mouse.up()
        write_signal(pathlib.Path(directory, "released"), "released")
        wait_for(laptop, "window.pttPage.state.screen === 'channels'", timeout_s=30, what="the kick")
        seen["kickedMessage"] = laptop.inner_text("#join-error")
        # A request about that channel still on its way when the kick landed (the page's presence poll, every 3 s)
        # is answered not-a-member after the `left`: the answer must not replace the kick's explanation.
        laptop.evaluate("(channel) => window.pttPage.send({ type: 'presence', channel })", left_channel)
        wait_for(laptop, "window.pttPage.state.lastError && window.pttPage.state.lastError.code === 'not-a-member'",
                 what="the late answer")
        seen["kickedMessageAfterLateAnswer"] = laptop.inner_text("#join-error")
        credentials = laptop.evaluate("localStorage.getItem('ptt.credentials')")

        phone_context = browser.new_context(
            ignore_https_errors=True, bypass_csp=True, has_touch=True, is_mobile=True,
            viewport={"width": 390, "height": 844}, device_scale_factor=3)
        phone_context.add_init_script(f"localStorage.setItem('ptt.credentials', {json.dumps(credentials)});")
        phone = phone_context.new_page()
        phone.on("console", lambda message: logs.append(f"[phone {message.type}] {message.text}"))
        phone.goto(url)
        wait_for(phone, "window.pttPage.state.connection === 'online'", what="the phone to sign in")
        phone.fill("#channel-name", recorded)
        phone.click("#join-button")
        wait_for(phone, "window.pttPage.state.screen === 'talk'", what="the phone to join")
        seen["hintVisiblePhone"] = phone.evaluate(VISIBLE, ".talk-hint")
        seen["replayVisibleRecorded"] = phone.evaluate(VISIBLE, "#replay-button")
        for line in logs[-20:]:
            log(line)
        emit(seen)
        browser.close()


main()
