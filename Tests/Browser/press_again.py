"""A press right after a release (issue 23, item 2): the page holds the floor, the space bar is let go and pressed
again a few milliseconds later, before the server's `floor-idle` for the first burst arrives. The second press must
send a `floor-request` and end talking (or queued, or visibly refused), never "Channel idle" with the button held.

Arguments: URL USER SECRET CHANNEL
Prints one JSON line: for each gap between release and press (ms), what the page sent and showed.
"""

import sys

from pttbrowser import emit, launch, log, new_page, sign_in_and_join, sync_playwright, try_wait, wait_for

# What the page sends and receives, by message type, in order (text messages only): the test reads the real
# WebSocket traffic, not the page's own idea of it.
RECORD_FRAMES = """
window.__sent = []; window.__received = [];
const PageSocket = window.WebSocket;
window.WebSocket = class extends PageSocket {
  constructor(...args) {
    super(...args);
    this.addEventListener("message", (event) => {
      if (typeof event.data === "string") window.__received.push(JSON.parse(event.data).type);
    });
  }
  send(data) {
    if (typeof data === "string") window.__sent.push(JSON.parse(data).type);
    return super.send(data);
  }
};
"""

SPACE = "document.dispatchEvent(new KeyboardEvent('{0}', {{code: 'Space', key: ' ', bubbles: true}}))"


def main():
    url, user, secret, channel = sys.argv[1:5]
    logs = []
    rounds = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = new_page(browser, logs)
        page.context.add_init_script(RECORD_FRAMES)
        sign_in_and_join(page, url, user, secret, channel)
        for gap in [0, 5, 0, 20]:
            # Talking for real first: the floor is granted and audio goes out.
            page.evaluate(SPACE.format("keydown"))
            wait_for(page, "window.pttPage.state.floor === 'granted'", what="the first grant")
            sent_before = page.evaluate("window.pttPage.state.stats.packetsSent")
            wait_for(
                page, f"window.pttPage.state.stats.packetsSent > {sent_before + 5}", what="the first burst's audio"
            )
            # Let go and press again `gap` ms later, in the page (no round trip to this script in between).
            marks = page.evaluate(
                """(gap) => {
                  const marks = { sent: window.__sent.length, received: window.__received.length };
                  document.dispatchEvent(new KeyboardEvent('keyup', { code: 'Space', key: ' ', bubbles: true }));
                  const again = () =>
                    document.dispatchEvent(new KeyboardEvent('keydown', { code: 'Space', key: ' ', bubbles: true }));
                  if (gap === 0) again(); else setTimeout(again, gap);
                  return marks;
                }""",
                gap,
            )
            sent, received = marks["sent"], marks["received"]
            # Settled: the first burst's floor-idle has arrived, and after it an answer to a new request.
            settled = try_wait(
                page,
                f"""(() => {{
                  const got = window.__received.slice({received});
                  const idle = got.indexOf('floor-idle');
                  const answers = ['floor-granted', 'floor-queued', 'floor-denied'];
                  const answer = got.findIndex((t, i) => i > idle && answers.includes(t));
                  return idle >= 0 && answer > idle && window.__sent.slice({sent}).includes('floor-request');
                }})()""",
                timeout_s=8,
            )
            if not settled:  # say what did happen: the idle (if any) has been processed by now or never comes
                try_wait(page, f"window.__received.slice({received}).includes('floor-idle')", timeout_s=3)
            packets = page.evaluate("window.pttPage.state.stats.packetsSent")
            talking = settled and try_wait(
                page,
                f"window.pttPage.state.floor === 'granted' && window.pttPage.state.stats.packetsSent > {packets + 5}",
                timeout_s=8,
            )
            seen = page.evaluate(
                f"""({{
                  sentAfterRelease: window.__sent.slice({sent}).filter((t) => t.startsWith('floor')),
                  receivedAfterRelease: window.__received.slice({received}).filter((t) => t.startsWith('floor')),
                  pressed: window.pttPage.state.pressed,
                  floor: window.pttPage.state.floor,
                  speakerText: document.getElementById('speaker').textContent,
                }})"""
            )
            seen.update({"gapMs": gap, "settled": settled, "talking": talking})
            rounds.append(seen)
            log("round", seen)
            # Let go for good, and wait for the idle floor before the next round.
            mark = page.evaluate("window.__received.length")
            page.evaluate(SPACE.format("keyup"))
            if not try_wait(page, f"window.__received.slice({mark}).includes('floor-idle')", timeout_s=8):
                break
        for line in logs[-20:]:
            log(line)
        emit({"rounds": rounds})
        browser.close()


main()
