"""The operator console next to a browser member: the console shows the page's member, its floor and talk
time; revoking from the console takes the floor away from the page; kicking a member from the console
ends its membership; ordinary clicks (pressed about 120 ms) on a button are not lost when the console renders
while the button is held; the drop counters say what they count. Also a wrong token.

Modes and arguments:
  live WEB_URL USER SECRET ADMIN_URL TOKEN CHANNEL KICK_USER
  wrong ADMIN_URL
Prints one JSON line with what the console and the page showed.
"""

import sys

from pttbrowser import emit, fail, launch, log, new_page, sync_playwright, wait_for


def open_console(page, admin_url, token):
    page.goto(admin_url + "/console")
    page.fill("#token", token)
    page.click("button[type=submit]")


# Counts the clicks that reach a Kick button, and stops them there (so the button does not act).
COUNT_CLICKS = """() => {
  window.kickClicks = 0;
  window.countKickClicks = (event) => {
    if (!event.target.closest || !event.target.closest("[data-testid^='kick-']")) return;
    window.kickClicks++;
    event.stopPropagation();
  };
  document.addEventListener("click", window.countKickClicks, true);
}"""


def clicks_across_renders(console, selector, presses=10, hold_ms=120):
    """Presses the button `presses` times, each held until the console has rendered at least once and then
    about `hold_ms`, as a person's ordinary click spans one of the console's renders. Returns how many clicks
    reached the button."""
    console.evaluate(COUNT_CLICKS)
    for _ in range(presses):
        box = console.locator(selector).bounding_box()
        console.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        before = console.evaluate("window.pttConsole.renders")
        console.mouse.down()
        wait_for(console, f"window.pttConsole.renders > {before}", what="a render while the button is held")
        console.wait_for_timeout(hold_ms)
        console.mouse.up()
    landed = console.evaluate("window.kickClicks")
    console.evaluate("document.removeEventListener('click', window.countKickClicks, true)")
    return landed


def main():
    mode = sys.argv[1]
    logs = []
    seen = {}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        if mode == "wrong":
            console = new_page(browser, logs)
            open_console(console, sys.argv[2], "not-the-token")
            wait_for(console, "document.getElementById('signin-error').textContent.length > 0", what="the token message")
            seen["message"] = console.inner_text("#signin-error")
            seen["channels"] = console.evaluate("window.pttConsole.channels.length")
            seen["overviewHidden"] = console.evaluate("document.getElementById('overview').hidden")
        elif mode == "live":
            web, user, secret, admin, token, channel, kick_user = sys.argv[2:9]
            page = new_page(browser, logs)
            page.goto(web)
            page.fill("#user", user)
            page.fill("#secret", secret)
            page.click("#signin-button")
            wait_for(page, "window.pttPage.state.connection === 'online'", what="the page to sign in")
            page.fill("#channel-name", channel)
            page.click("#join-button")
            wait_for(page, "window.pttPage.state.screen === 'talk'", what="the page to join")
            page.evaluate("window.pttPage.press()")
            wait_for(page, "window.pttPage.state.floor === 'granted'", what="the page's grant")

            console = new_page(browser, logs)
            open_console(console, admin, token)
            shows = (f"window.pttConsole.ready && window.pttConsole.channels.some(c => c.name === '{channel}' "
                     f"&& c.speaker && c.speaker.user === '{user}' && c.members.some(m => m.user === '{user}' && m.audioReachable))")
            wait_for(console, shows, what="the console to show the page's member holding the floor")
            seen["floorText"] = console.inner_text(f"[data-testid='floor-{channel}']")
            seen["memberRow"] = console.inner_text(f"tr[data-user='{user}']")
            seen["figures"] = console.evaluate("Object.keys(window.pttConsole.figures)")
            member = console.evaluate(
                f"window.pttConsole.channels.find(c => c.name === '{channel}').members.find(m => m.user === '{kick_user}').id")
            revoke = console.locator(f"[data-testid='revoke-{channel}']")
            revoke.click()
            seen["confirmText"] = revoke.inner_text()
            revoke.click()
            wait_for(page, "window.pttPage.state.floor === 'revoked'", what="the page to lose the floor")
            seen["pageNote"] = page.inner_text("#floor-note")
            page.evaluate("window.pttPage.release()")
            wait_for(console, f"document.querySelector(\"[data-testid='floor-{channel}']\").textContent === 'floor idle'",
                     what="the console to show the floor idle")
            seen["clicksLanded"] = clicks_across_renders(console, f"[data-testid='kick-{member}']")
            wait_for(console, "document.getElementById('figure-notes').textContent.length > 0", what="the drop notes")
            seen["droppedTitle"] = console.get_attribute("[data-testid='figure-packets dropped']", "title")
            seen["dropNotes"] = console.inner_text("#figure-notes")
            # Drop notes come and go above the channels: they must not move the buttons from under a pointer (a
            # click pressed before a note appears and released after lands on nothing). The Kick button's top with
            # the notes shown, then with them emptied, in one go (the next render puts them back).
            tops = console.evaluate(f"""() => {{
              const top = () => document.querySelector("[data-testid='kick-{member}']").getBoundingClientRect().top;
              const shown = top();
              document.getElementById("figure-notes").replaceChildren();
              return [shown, top()];
            }}""")
            seen["kickTopBefore"], seen["kickTopAfter"] = tops
            kick = console.locator(f"[data-testid='kick-{member}']")
            kick.click()
            kick.click()
            wait_for(console, f"!window.pttConsole.channels.find(c => c.name === '{channel}').members.some(m => m.user === '{kick_user}')",
                     what="the kicked member to go from the console")
            seen["kicked"] = kick_user
        else:
            fail(f"unknown mode {mode}")
        for line in logs[-10:]:
            log(line)
        emit(seen)
        browser.close()


main()
