"""Mouth-to-ear delay from one page to another: chirps through the first page's fake microphone, their onsets as the
second page plays them.

Arguments: URL USER_A SECRET_A USER_B SECRET_B CHANNEL HOLD_S [LOAD_PROCESSES [STALLS]]
The first page holds the talk button HOLD_S seconds while its microphone plays chirps (60 ms tones at irregular
intervals of 450–800 ms, six tones in turn, made here); with LOAD_PROCESSES, that many busy processes load the
machine while it talks (each ends by itself after HOLD_S + 30 s, and is killed at the end). STALLS freezes a page's
renderer (SIGSTOP, then SIGCONT) at chosen times of the burst: `AT:PAGE:SECONDS,...` with PAGE `talker` or
`listener`, AT in seconds after the grant (a tab that the machine stalls, deterministically). The two pages run in
browsers of their own, so that each one's processes can be found. Each page's worklets time the onset of every sound
after a silence and count its zero crossings (`captureOnsets`, `playOnsets`: [Date.now() in ms, crossings]): the
capture worklet's input on the first, the playback worklet's output on the second; the crossings tell the tones
apart, and `pair` pairs the onsets.
Prints one JSON line: `delays` [[capture time relative to the grant in s, delay in ms], ...], `stalls` [[start, end
in s relative to the grant, page], ...] and counts.
"""

import math
import os
import random
import shutil
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import threading
import time
import wave

from pttbrowser import chromium_args, emit, fail, log, new_page, sign_in_and_join, sync_playwright, wait_for

RATE = 48000


TONES = [600, 900, 1200, 1500, 1800, 2100]  # Hz, in turn: a tone comes back only every six chirps (2.7 s or more)


def chirp_wav(path, seconds):
    """Silence with a 60 ms tone (amplitude 0.5, 3 ms ramps) every 450–800 ms (seeded), the tones of TONES in turn."""
    rng = random.Random(23)
    samples = [0.0] * int(seconds * RATE)
    at = 0.3
    length = int(0.06 * RATE)
    ramp = int(0.003 * RATE)
    index = 0
    while at + 0.1 < seconds:
        start = int(at * RATE)
        frequency = TONES[index % len(TONES)]
        for i in range(length):
            gain = min(1.0, i / ramp, (length - i) / ramp)
            samples[start + i] = 0.5 * gain * math.sin(2 * math.pi * frequency * i / RATE)
        at += rng.uniform(0.45, 0.8)
        index += 1
    with wave.open(path, "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(RATE)
        out.writeframes(b"".join(struct.pack("<h", int(s * 32767)) for s in samples))


def tone(crossings):
    """The index in TONES of a chirp that crossed zero `crossings` times in 20 ms (twice per period)."""
    return min(range(len(TONES)), key=lambda i: abs(TONES[i] * 0.04 - crossings))


def distinct(onsets):
    """One onset per chirp: a chirp cut by a gap in play-out (a stall) starts again less than 0.4 s after its onset,
    and chirps are at least 0.45 s apart."""
    kept = []
    for onset in onsets:
        if not kept or onset[0] - kept[-1][0] >= 400:
            kept.append(onset)
    return kept


def pair(captured, played):
    """Pairs each play onset [time, crossings] with the capture onset of the same tone heard 20 ms to 2.7 s
    earlier: a tone comes back only every six chirps, so there is at most one. A chirp lost on either side only
    costs its own pair. Returns [(capture time, play time), ...]."""
    pairs = []
    for p, crossings in played:
        heard = tone(crossings)
        matches = [c for c, n in captured if tone(n) == heard and 20 <= p - c < 2700]
        if len(matches) == 1:
            pairs.append((matches[0], p))
    return pairs


def busy(seconds):
    """A process that keeps one core busy for `seconds`, then ends by itself."""
    code = f"import time\nend = time.time() + {seconds}\nwhile time.time() < end: pass\n"
    return subprocess.Popen([sys.executable, "-c", code])


def renderers(page_name):
    """The renderer processes of the browser this script launched for `page_name` (its command line carries
    `marker(page_name)`; a child process rewrites its own command line into one string)."""
    parents = {}
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/cmdline", "rb") as file:
                command = file.read().replace(b"\0", b" ").decode(errors="replace").split()
            with open(f"/proc/{entry}/stat") as file:
                parent = int(file.read().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            continue
        parents[int(entry)] = (parent, command)
    family = {pid for pid, (_, command) in parents.items() if marker(page_name) in command}
    grew = True
    while grew:
        children = {pid for pid, (parent, _) in parents.items() if parent in family} - family
        family |= children
        grew = bool(children)
    return [pid for pid in family if "--type=renderer" in parents[pid][1]]


def marker(page_name):
    """A switch chromium ignores, which tells this script's browser for `page_name` from any other."""
    return f"--ptt-page={page_name}-{os.getpid()}"


def parse_stalls(text):
    """`AT:PAGE:SECONDS,...` as [(at, page, seconds), ...] in time order."""
    stalls = []
    for item in filter(None, text.split(",")):
        at, page_name, seconds = item.split(":")
        if page_name not in ("talker", "listener"):
            fail(f"a stall's page is talker or listener, not {page_name}")
        stalls.append((float(at), page_name, float(seconds)))
    return sorted(stalls)


def stall_pages(stalls, granted_ms, done):
    """Freezes each page's renderers for its stall at its time; appends [start, end (s after the grant), page]."""
    for at, page_name, seconds in stalls:
        time.sleep(max(0.0, granted_ms / 1000 + at - time.time()))
        pids = renderers(page_name)
        if not pids:
            done.append(None)  # the main thread fails the run: nothing to stall
            return
        started = time.time()
        for pid in pids:
            os.kill(pid, signal.SIGSTOP)
        try:
            time.sleep(seconds)
        finally:
            for pid in pids:
                os.kill(pid, signal.SIGCONT)
        done.append([round(started - granted_ms / 1000, 3), round(time.time() - granted_ms / 1000, 3), page_name])


def main():
    url, user_a, secret_a, user_b, secret_b, channel, hold = sys.argv[1:8]
    hold = float(hold)
    load = int(sys.argv[8]) if len(sys.argv) > 8 else 0
    stalls = parse_stalls(sys.argv[9]) if len(sys.argv) > 9 else []
    directory = tempfile.mkdtemp(prefix="mouth-to-ear-")
    wav = os.path.join(directory, "chirps.wav")
    chirp_wav(wav, hold + 20)
    logs = []
    hogs = []
    stalled = []
    try:
        with sync_playwright() as playwright:
            # pttbrowser.launch plays the file once; the chirps must go on for as long as the page talks.
            executable = shutil.which("chromium") or fail("chromium is not installed (make test installs it)")
            browsers = [
                playwright.chromium.launch(
                    executable_path=executable, headless=True, args=chromium_args(wav, loop=True) + [marker("talker")]),
                playwright.chromium.launch(
                    executable_path=executable, headless=True, args=chromium_args() + [marker("listener")]),
            ]
            talker = new_page(browsers[0], logs)
            listener = new_page(browsers[1], logs)
            sign_in_and_join(listener, url, user_b, secret_b, channel)
            sign_in_and_join(talker, url, user_a, secret_a, channel)
            reachable = ("[...window.pttPage.state.channel.members.values()]"
                         f".some(m => m.user === '{user_b}' && m.reachable)")
            wait_for(talker, reachable, what="the listening page to be reachable")
            hogs = [busy(hold + 30) for _ in range(load)]
            talker.evaluate("window.pttPage.press()")
            wait_for(talker, "window.pttPage.state.floor === 'granted'", what="the grant")
            granted = talker.evaluate("Date.now()")
            staller = threading.Thread(target=stall_pages, args=(stalls, granted, stalled))
            staller.start()
            time.sleep(hold)
            staller.join()
            if None in stalled:
                fail("found no renderer process to stall")
            released = talker.evaluate("Date.now()")
            talker.evaluate("window.pttPage.release()")
            for hog in hogs:
                hog.kill()
            wait_for(listener, "window.pttPage.state.speaker === null", what="the listening page to see the end")
            wait_for(listener, "window.pttPage.state.stats.outLevel === 0", what="the listening page to play it all")
            captured = distinct([o for o in talker.evaluate("window.pttPage.state.stats.captureOnsets")
                                 if granted + 100 <= o[0] <= released - 100])
            played = distinct(listener.evaluate("window.pttPage.state.stats.playOnsets"))
            stats = listener.evaluate("window.pttPage.state.stats")
            log("listener stats", {k: v for k, v in stats.items() if not k.endswith("Onsets")})
            for line in logs[-20:]:
                log(line)
            for browser in browsers:
                browser.close()
    finally:
        for hog in hogs:
            hog.kill()
            hog.wait()
    pairs = pair(captured, played)
    if not pairs:
        fail(f"could not pair {len(captured)} capture onsets with {len(played)} play onsets")
    delays = [[round((c - granted) / 1000, 3), p - c] for c, p in pairs]
    log("delays", [d for _, d in delays])
    emit({"delays": delays, "stalls": stalled, "captured": len(captured), "played": len(played),
          "captureOnsets": [[c - granted, n] for c, n in captured], "playOnsets": [[p - granted, n] for p, n in played],
          "underruns": stats.get("underruns"), "framesDecoded": stats["framesDecoded"]})


main()
