"""Two pages in one channel: the first holds the floor, the second asks for it (space bar) and is queued or
denied, as the server's floor settings say; if queued, it gets the floor when the first lets go (hand-off).

Arguments: URL USER_A SECRET_A USER_B SECRET_B CHANNEL EXPECT (queued | denied) [replay]
With `replay` (a recorded channel), the first page then hears the second's message again.
Prints one JSON line with what each page showed at each step.
"""

import sys

from pttbrowser import emit, launch, log, new_page, sign_in_and_join, sync_playwright, try_wait, wait_for


def main():
    url, user_a, secret_a, user_b, secret_b, channel, expect = sys.argv[1:8]
    replay = len(sys.argv) > 8 and sys.argv[8] == "replay"
    logs = []
    seen = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        a = new_page(browser, logs)
        b = new_page(browser, logs)
        sign_in_and_join(a, url, user_a, secret_a, channel)
        sign_in_and_join(b, url, user_b, secret_b, channel)
        wait_for(a, f"window.pttPage.state.channel.members.size >= 2", what="the first page to see the second member")
        seen["membersA"] = a.evaluate("[...window.pttPage.state.channel.members.values()].map(m => m.name)")
        reachable = f"[...window.pttPage.state.channel.members.values()].some(m => m.user === '{user_b}' && m.reachable)"
        wait_for(a, reachable, what="the first page to see the second member reachable")
        seen["statusOfB"] = a.inner_text(f"#members li:has-text('{user_b}') .state")

        a.evaluate("window.pttPage.press()")
        wait_for(a, "window.pttPage.state.floor === 'granted'", what="the first page's grant")
        wait_for(b, "window.pttPage.state.speaker !== null", what="the second page to see the speaker")
        seen["speakerB"] = b.inner_text("#speaker")

        b.focus("#talk-button")
        b.keyboard.down("Space")
        if expect == "queued":
            wait_for(b, "window.pttPage.state.floor === 'queued'", what="the second page to be queued")
            seen["noteB"] = b.inner_text("#floor-note")
            a.evaluate("window.pttPage.release()")
            wait_for(b, "window.pttPage.state.floor === 'granted'", what="the hand-off to the second page")
            seen["speakerBAfter"] = b.inner_text("#speaker")
            wait_for(a, f"window.pttPage.state.speaker === '{user_b}'", what="the first page to see the new speaker")
            seen["speakerAAfter"] = a.inner_text("#speaker")
            wait_for(b, "window.pttPage.state.stats.packetsSent > 40", what="the second page's audio")
            b.keyboard.up("Space")
            seen["packetsSentB"] = b.evaluate("window.pttPage.state.stats.packetsSent")
            wait_for(a, "window.pttPage.state.floor === 'idle'", what="the floor to be idle")
            seen["speakerAEnd"] = a.inner_text("#speaker")
            seen["packetsReceivedA"] = a.evaluate("window.pttPage.state.stats.framesDecoded")
            if replay:
                before = a.evaluate("window.pttPage.state.stats.framesDecoded")
                a.click("[data-testid=replay-button]")
                wait_for(a, "window.pttPage.state.replay !== null", what="the replay to start")
                seen["replayNote"] = a.inner_text("#floor-note")
                wait_for(a, "window.pttPage.state.replay === null", timeout_s=20, what="the replay to end")
                # `replay-ended` comes on the control path and the audio through the media bridge, and WebCodecs
                # decodes asynchronously: the last frames can still be on their way when the replay is over.
                sent = seen["packetsSentB"]
                decoded = f"window.pttPage.state.stats.framesDecoded - {before}"
                try_wait(a, f"{decoded} >= {sent - 2}", timeout_s=5)  # the Swift test reports how many arrived
                seen["replayFrames"] = a.evaluate(decoded)
        else:
            wait_for(b, "window.pttPage.state.floor === 'denied'", what="the second page to be denied")
            seen["noteB"] = b.inner_text("#floor-note")
            seen["buttonClassB"] = b.get_attribute("#talk-button", "class")
            b.keyboard.up("Space")
            a.evaluate("window.pttPage.release()")
            wait_for(b, "window.pttPage.state.floor === 'idle'", what="the floor to be idle")
        for line in logs[-20:]:
            log(line)
        emit(seen)
        browser.close()


main()
