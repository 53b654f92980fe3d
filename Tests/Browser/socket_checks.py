"""Bad input on the web listener's WebSocket, sent from a page as a hostile script would.

Arguments: URL USER SECRET CHANNEL OTHER_SSRC
Each case opens its own WebSocket to /ws and reports what the server sent back and how the socket closed:
  garbage   a text message that is not JSON
  silent    a socket that never says hello (the server's hello deadline closes it)
  junk      after hello and join: binary messages that are not RTP, RTP with another member's SSRC, then a
            `presence` request (the connection must still work)
  huge      a 100 KiB message (over the 64 KiB limit)
Prints one JSON line.
"""

import json
import sys

from pttbrowser import emit, launch, log, new_page, sync_playwright

SCRIPT = """
async ([user, secret, channel, otherSSRC]) => {
  const url = location.origin.replace(/^http/, "ws") + "/ws";
  function run(name, steps) {
    return new Promise((resolve) => {
      const socket = new WebSocket(url);
      socket.binaryType = "arraybuffer";
      const seen = { messages: [], closeCode: null };
      const done = () => resolve(seen);
      const timer = setTimeout(() => { seen.timedOut = true; socket.close(); done(); }, 8000);
      socket.onmessage = (event) => {
        if (typeof event.data !== "string") return;
        const message = JSON.parse(event.data);
        seen.messages.push(message);
        if (message.type === "heartbeat") socket.send(JSON.stringify({ type: "heartbeat-ack", seq: message.seq }));
        steps.onMessage && steps.onMessage(socket, message, seen, () => { clearTimeout(timer); socket.close(1000); done(); });
      };
      socket.onclose = (event) => { seen.closeCode = event.code; clearTimeout(timer); done(); };
      socket.onopen = () => steps.onOpen && steps.onOpen(socket);
    });
  }
  const hello = { type: "hello", version: 1, user, secret, device: "hostile-" + Math.random(), role: "app" };
  const result = {};
  result.garbage = await run("garbage", { onOpen: (s) => s.send("this is not json") });
  result.silent = await run("silent", {});
  result.junk = await run("junk", {
    onOpen: (s) => s.send(JSON.stringify(hello)),
    onMessage: (s, m, seen, finish) => {
      if (m.type === "welcome") s.send(JSON.stringify({ type: "join", id: 1, channel }));
      if (m.type === "joined") {
        s.send(new Uint8Array([1, 2, 3]));                       // not RTP
        const spoof = new Uint8Array(32);                          // RTP with another member's SSRC
        spoof[0] = 0x80; spoof[1] = m.media.payloadType;
        new DataView(spoof.buffer).setUint32(8, otherSSRC >>> 0);
        s.send(spoof);
        s.send(JSON.stringify({ type: "presence", id: 2, channel }));
      }
      if (m.type === "presence-report") finish();
    },
  });
  result.huge = await run("huge", {
    onOpen: (s) => s.send(JSON.stringify(hello)),
    onMessage: (s, m) => { if (m.type === "welcome") s.send("x".repeat(100 * 1024)); },
  });
  return result;
}
"""


def main():
    url, user, secret, channel, other = sys.argv[1:6]
    logs = []
    with sync_playwright() as playwright:
        browser = launch(playwright)
        page = new_page(browser, logs)
        page.goto(url)
        result = page.evaluate(SCRIPT, [user, secret, channel, int(other)])
        for line in logs[-10:]:
            log(line)
        log(json.dumps(result)[:2000])
        emit(result)
        browser.close()


main()
