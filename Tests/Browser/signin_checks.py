"""Sign-in as a person meets it: a link that works once, an expired link, a wrong secret, and a browser
without WebCodecs.

Modes and arguments:
  link LINK_URL CHANNEL      open the link, join CHANNEL; then open the same link in a fresh browser profile
  again LINK_URL CHANNEL     open the link, join CHANNEL; then open the same link again in the same browser (a new tab)
  expired LINK_URL           open a link past its deadline
  wrong URL USER SECRET      sign in with a wrong secret
  nowebcodecs URL            a browser where AudioEncoder and AudioDecoder do not exist
Prints one JSON line with what the pages showed.
"""

import sys

from pttbrowser import emit, fail, launch, log, new_page, sync_playwright, try_wait, wait_for


def signin_error(page):
    wait_for(page, "document.getElementById('signin-error').textContent.length > 0", what="a sign-in message")
    return page.inner_text("#signin-error")


def main():
    mode = sys.argv[1]
    logs = []
    seen = {"mode": mode}
    with sync_playwright() as playwright:
        browser = launch(playwright)
        if mode == "link":
            link, channel = sys.argv[2:4]
            first = new_page(browser, logs)
            first.goto(link)
            wait_for(first, "window.pttPage.state.connection === 'online'", what="the link to sign the page in")
            seen["addressBar"] = first.url
            first.fill("#channel-name", channel)
            first.click("#join-button")
            wait_for(first, "window.pttPage.state.screen === 'talk'", what="the page to join")
            seen["user"] = first.evaluate("window.pttPage.state.user")
            seen["channel"] = first.inner_text("#channel-title")
            first.reload()  # signed in for good: a reload needs no link, and goes back to the channel
            wait_for(first, "window.pttPage.state.screen === 'talk'", what="the page to come back after a reload")
            seen["afterReload"] = first.inner_text("#channel-title")
            second = new_page(browser, logs)  # a fresh profile: the link again
            second.goto(link)
            seen["secondError"] = signin_error(second)
            seen["secondScreen"] = second.evaluate("window.pttPage.state.screen")
        elif mode == "again":
            link, channel = sys.argv[2:4]
            first = new_page(browser, logs)
            first.goto(link)
            wait_for(first, "window.pttPage.state.connection === 'online'", what="the link to sign the page in")
            first.fill("#channel-name", channel)
            first.click("#join-button")
            wait_for(first, "window.pttPage.state.screen === 'talk'", what="the page to join")
            first.close()
            again = first.context.new_page()  # the same browser profile: its stored credential is there
            again.on("console", lambda message: logs.append(f"[{message.type}] {message.text}"))
            again.goto(link)
            try_wait(
                again,
                "window.pttPage.state.screen === 'talk' && window.pttPage.state.connection === 'online'"
                " || document.getElementById('signin-error').textContent.length > 0",
            )
            seen["screen"] = again.evaluate("window.pttPage.state.screen")
            seen["connection"] = again.evaluate("window.pttPage.state.connection")
            seen["signinError"] = again.inner_text("#signin-error")
            seen["notice"] = again.evaluate("(document.getElementById('page-note') || {}).textContent || ''")
            seen["channel"] = again.inner_text("#channel-title")
        elif mode == "expired":
            page = new_page(browser, logs)
            page.goto(sys.argv[2])
            seen["message"] = signin_error(page)
        elif mode == "wrong":
            url, user, secret = sys.argv[2:5]
            page = new_page(browser, logs)
            page.goto(url)
            page.fill("#user", user)
            page.fill("#secret", secret)
            page.click("#signin-button")
            seen["message"] = signin_error(page)
            seen["screen"] = page.evaluate("window.pttPage.state.screen")
        elif mode == "nowebcodecs":
            context = browser.new_context(ignore_https_errors=True, bypass_csp=True)
            context.add_init_script("delete window.AudioEncoder; delete window.AudioDecoder;")
            page = context.new_page()
            page.goto(sys.argv[2])
            wait_for(page, "!document.getElementById('unsupported').hidden", what="the unsupported notice")
            seen["notice"] = page.inner_text("#unsupported")
            seen["signinHidden"] = page.evaluate("document.getElementById('signin').hidden")
        else:
            fail(f"unknown mode {mode}")
        for line in logs[-10:]:
            log(line)
        emit(seen)
        browser.close()


main()
