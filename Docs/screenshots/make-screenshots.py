#!/usr/bin/env python3
"""Remakes the screenshots in Docs/screenshots/ with headless Chromium, from a real pttd and real members.

    python3 Docs/screenshots/make-screenshots.py [--bin .build/debug] [--out Docs/screenshots]

It does what a new user would: starts pttd on a scratch data directory (HTTPS with its self-signed
certificate), adds users with `pttctl user add jane --link` and `pttctl user add bob`, opens jane's sign-in
link in Chromium (the certificate accepted, as a person does once), joins `deck`, and while `ptt talk` plays a
fixture as bob, photographs the page on a phone-sized screen; then jane holds the button (her fake microphone
plays the same speech) and the page is photographed again; then the operator console. Needs chromium and
Playwright for Python (`make test-tools` installs both), and the built pttd, pttctl and ptt.
"""

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import wave

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "Tests", "Browser"))
from pttbrowser import chromium_args, sync_playwright  # noqa: E402

PHONE = {"viewport": {"width": 390, "height": 844}, "device_scale_factor": 2, "is_mobile": True, "has_touch": True}


def wait_file(path, timeout=30):
    deadline = time.time() + timeout
    while time.time() < deadline:
        if os.path.exists(path):
            try:
                with open(path) as f:
                    return json.load(f)
            except json.JSONDecodeError:
                pass
        time.sleep(0.1)
    sys.exit(f"{path} did not appear")


def fixture_wav(directory):
    """The fixture's speech as 48 kHz WAV, for the fake microphone (opusdec, from opus-tools)."""
    out = os.path.join(directory, "speech.wav")
    subprocess.run(["opusdec", "--rate", "48000", os.path.join(ROOT, "fixtures", "burst-20ms-mono.opus"), out],
                   check=True, capture_output=True)
    with wave.open(out) as w:
        assert w.getframerate() == 48000
    return out


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(ROOT, ".build", "debug"))
    parser.add_argument("--out", default=os.path.dirname(os.path.abspath(__file__)))
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="ptt-screens-")
    data = os.path.join(work, "data")
    pttd = subprocess.Popen(
        [os.path.join(args.bin, "pttd"), "--data", data, "--control-host", "127.0.0.1", "--control-port", "0",
         "--media-port", "0", "--admin-port", "0", "--web-host", "127.0.0.1", "--web-port", "0",
         "--log-level", "warning"])
    try:
        info = wait_file(os.path.join(data, "runtime.json"))
        ctl = [os.path.join(args.bin, "pttctl"), "--data", data]
        jane = subprocess.run(ctl + ["user", "add", "jane", "--link"], check=True, capture_output=True, text=True).stdout
        link = next(line.split(" ", 1)[1] for line in jane.splitlines() if line.startswith("link: "))
        bob = subprocess.run(ctl + ["user", "add", "bob"], check=True, capture_output=True, text=True).stdout
        bob_secret = next(line.split(" ", 1)[1] for line in bob.splitlines() if line.startswith("secret: "))
        subprocess.run(ctl + ["channel", "create", "deck"], check=False, capture_output=True)
        env = dict(os.environ, PTT_HOME=work, PTT_SERVER=f"127.0.0.1:{info['controlPort']}", PTT_USER="bob",
                   PTT_SECRET=bob_secret)
        wav = fixture_wav(work)
        with sync_playwright() as playwright:
            browser = playwright.chromium.launch(executable_path=shutil.which("chromium"), headless=True,
                                                 args=chromium_args(wav, loop=True))
            phone = browser.new_context(ignore_https_errors=True, bypass_csp=True, **PHONE)
            page = phone.new_page()
            page.goto(link)
            page.wait_for_function("window.pttPage.state.connection === 'online'")
            page.fill("#channel-name", "deck")
            page.screenshot(path=os.path.join(args.out, "page-channel.png"))
            page.click("#join-button")
            page.wait_for_function("window.pttPage.state.screen === 'talk'")
            # bob (ptt) joins and talks: the page shows him as the speaker, with the channel's level.
            talk = subprocess.Popen([os.path.join(args.bin, "ptt"), "talk", "--channel", "deck", "--file",
                                     os.path.join(ROOT, "fixtures", "burst-20ms-mono.opus")], env=env,
                                    stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            page.wait_for_function("window.pttPage.state.speaker === 'bob' && window.pttPage.state.stats.framesDecoded > 60")
            page.wait_for_function("document.getElementById('out-meter').value > 0.2", timeout=10000)
            page.screenshot(path=os.path.join(args.out, "page-listening.png"))
            talk.wait(timeout=30)
            page.wait_for_function("window.pttPage.state.floor === 'idle'")
            # bob's phone sleeps: its Local Push extension holds a push-provider connection (ptt monitor stands in).
            monitor = subprocess.Popen([os.path.join(args.bin, "ptt"), "monitor", "--channel", "deck", "--role",
                                        "push-provider", "--device", "bob-phone", "--seconds", "60"], env=env,
                                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            page.wait_for_function("window.pttPage.state.channel.members.size >= 2", timeout=15000)
            # jane holds the button; her (fake) microphone speaks.
            page.evaluate("window.pttPage.press()")
            page.wait_for_function("window.pttPage.state.floor === 'granted' && window.pttPage.state.stats.packetsSent > 50")
            page.wait_for_function("document.getElementById('mic-meter').value > 0.2", timeout=10000)
            page.screenshot(path=os.path.join(args.out, "page-talking.png"))
            console_url = info["adminURL"] + "/console"
            token = open(os.path.join(data, "admin-token")).read().strip()
            desktop = browser.new_context(viewport={"width": 1280, "height": 800}, bypass_csp=True)
            console = desktop.new_page()
            response = console.goto(console_url)
            if response is not None and response.ok and console.locator("input").count() > 0:
                console.locator("input").first.fill(token)
                console.keyboard.press("Enter")
                console.wait_for_function("window.pttConsole.ready && window.pttConsole.channels.some(c => c.speaker)")
                console.wait_for_timeout(2500)  # the figures come every other poll
                console.screenshot(path=os.path.join(args.out, "console.png"), full_page=True)
            page.evaluate("window.pttPage.release()")
            monitor.terminate()
            browser.close()
        print("screenshots in", args.out)
    finally:
        pttd.terminate()
        pttd.wait(timeout=10)
        shutil.rmtree(work, ignore_errors=True)


main()
