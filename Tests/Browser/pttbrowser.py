"""Shared by the browser tests: launches Debian's chromium through Playwright and reports results as JSON.

Each test script is run by a Swift test as a process (like ffmpeg in the interop tests). It prints exactly
one line of JSON on stdout at the end (what it saw), and diagnostics on stderr. The Swift test decides.
"""

import json
import os
import shutil
import sys
import time

from playwright.sync_api import sync_playwright  # noqa: F401 (re-exported for the scripts)


def chromium_args(wav=None, loop=False):
    """Flags that work as root in a headless container: a fake microphone playing `wav` once (or over and
    over with `loop`), or a tone without one."""
    args = [
        "--no-sandbox",
        "--use-fake-ui-for-media-stream",
        "--use-fake-device-for-media-stream",
        "--autoplay-policy=no-user-gesture-required",
    ]
    if wav:
        args.append(f"--use-file-for-fake-audio-capture={wav}" + ("" if loop else "%noloop"))
    return args


def launch(playwright, wav=None):
    """Debian's chromium (never a downloaded browser), headless."""
    executable = shutil.which("chromium")
    if executable is None:
        fail("chromium is not installed (make test installs it)")
    return playwright.chromium.launch(executable_path=executable, headless=True, args=chromium_args(wav))


def new_page(browser, logs):
    """A page that accepts the server's self-signed certificate and whose console lines go to `logs`."""
    # bypass_csp: Playwright evaluates its wait conditions as strings, which the page's CSP (rightly) forbids.
    context = browser.new_context(ignore_https_errors=True, bypass_csp=True)
    page = context.new_page()
    page.on("console", lambda message: logs.append(f"[{message.type}] {message.text}"))
    page.on("pageerror", lambda error: logs.append(f"[pageerror] {error}"))
    return page


def wait_for(page, expression, timeout_s=15.0, what=None):
    """Waits until `expression` (JavaScript) is truthy in the page, at most `timeout_s`; fails with `what`."""
    try:
        page.wait_for_function(expression, timeout=timeout_s * 1000)
    except Exception as error:  # Playwright's TimeoutError, or the page closed
        fail(f"timed out waiting for {what or expression}: {error}")


def emit(result):
    """The one line the Swift test reads."""
    print(json.dumps(result), flush=True)


def write_signal(path, text=""):
    """Creates the file `path` with `text` in one step (written beside it, then renamed over): a Swift test that waits
    for the file and then reads it never finds it empty. (It once read an empty member id under ThreadSanitizer.)"""
    partial = f"{path}.partial"
    with open(partial, "w") as file:
        file.write(text)
    os.replace(partial, path)


def log(*parts):
    print(time.strftime("%H:%M:%S"), *parts, file=sys.stderr, flush=True)


def fail(message):
    emit({"error": message})
    sys.exit(2)


def try_wait(page, expression, timeout_s=10.0):
    """Like `wait_for`, but returns whether `expression` became truthy instead of failing: for what the Swift test
    judges (a bug shows as False in the result, not as a script error)."""
    try:
        page.wait_for_function(expression, timeout=timeout_s * 1000)
        return True
    except Exception:  # Playwright's TimeoutError
        return False


def sign_in_and_join(page, url, user, secret, channel):
    """Opens `url`, signs in with the form, and joins `channel` by name."""
    page.goto(url)
    page.fill("#user", user)
    page.fill("#secret", secret)
    page.click("#signin-button")
    wait_for(page, "window.pttPage.state.connection === 'online'", what=f"{user} to sign in")
    page.fill("#channel-name", channel)
    page.click("#join-button")
    wait_for(page, "window.pttPage.state.screen === 'talk'", what=f"{user} to join")
