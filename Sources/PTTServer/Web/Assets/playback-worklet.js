// Playback for the walkie-talkie: an adaptive jitter buffer of decoded samples.
//
// Each frame arrives with its media time (the RTP timestamp in seconds). How late a frame is, compared with the
// earliest of the last 150 frames, is its jitter; the buffer keeps a cushion a little above the 95th percentile of
// those jitters (grow on jitter), and plays a burst once the cushion and one frame are buffered. A frame less late
// than the one before it is catching up after a delay (a stall's backlog arriving faster than real time) and is
// not a sample: a delay is one sample, its latest frame. Half a second's stall would otherwise be 25 late frames,
// 17 % of the window, and one stall would hold the delay up for the next 3 s. So stalls raise the cushion only when
// they recur (more than one sample in 20); a rarer one costs a gap, and its backlog is drained within a second.
// (With independent jitter the samples lean late: their 95th percentile is about the 97.5th of all frames.) When more
// is buffered than the cushion needs for a while (a stall's audio arrived in a rush, or the link calmed down),
// it plays a little faster, and skips quiet stretches, until the excess is gone (shrink back). A new stream (a
// reconnect, a restarted server) flushes what is buffered. At most 1 s is kept, the oldest dropped.
//
// Every ~20 ms while it plays (and once when it stops) it tells the page the level of what it played, how much
// is buffered and the cushion; it also reports the onset of each sound that follows a silence (for measuring
// mouth-to-ear delay with chirps).

import { OnsetDetector, QUIET } from "./onset-detector.js"; // QUIET: skippable when draining

const JITTER_FRAMES = 150; // the jitter of the last 150 frames (3 s of 20 ms), across bursts, sets the cushion
const JITTER_QUANTILE = 0.95; // the cushion covers 95 % of them: a rare stall costs a gap, not lasting delay
const MIN_CUSHION_S = 0.01;
const MARGIN_S = 0.006; // on top of that jitter (about two render quanta)
const MAX_CUSHION_S = 0.5;
const FRAME_S = 0.02; // what one packet brings
const EXCESS_WINDOW_S = 0.3; // the lowest level over this long (twice) tells how much is buffered beyond need
const MAX_SPEED_UP = 0.12; // at most 12 % faster while draining an excess (quiet stretches are skipped outright)
const REPORT_EVERY = 1024; // samples between reports to the page

class PTTPlayback extends AudioWorkletProcessor {
  constructor() {
    super();
    this.capacity = sampleRate; // 1 s
    this.ring = new Float32Array(this.capacity);
    this.read = 0; // fractional read position in the ring
    this.count = 0; // samples buffered (from `read`)
    this.playing = false;
    this.arrivals = []; // the transits of the last JITTER_FRAMES frames
    this.cushion = 0.02;
    this.frame = Math.round(FRAME_S * sampleRate); // the length of the last frame (a packet may hold 20–120 ms)
    this.lastArrival = -1;
    this.draining = false;
    this.underruns = 0; // times the buffer ran dry before the next frame of the same burst came
    this.mediaEnd = null; // the media time where the buffered audio ends
    this.dryAt = null; // the media time where it ran dry
    this.lowest = [Infinity, Infinity]; // lowest buffered level in this and the previous EXCESS_WINDOW_S
    this.lowestSince = 0;
    this.reportedPlaying = false; // what the last report said
    this.levelSum = 0;
    this.levelCount = 0;
    this.onsets = new OnsetDetector((at, crossings) => this.port.postMessage({ onset: [at, crossings] }));
    this.port.onmessage = (event) => this.received(event.data);
  }

  received(message) {
    if (message.reset) return this.flush();
    this.arrived(message.media);
    this.frame = message.samples.length;
    this.push(message.samples);
    if (typeof message.media === "number") this.mediaEnd = message.media + this.frame / sampleRate;
  }

  /** A new stream: what is buffered belongs to the old one. */
  flush() {
    this.read = 0;
    this.count = 0;
    this.playing = false;
    this.arrivals = [];
    this.lowest = [Infinity, Infinity];
    this.mediaEnd = null;
    this.dryAt = null;
  }

  /** Measures the frame's jitter: its transit (arrival minus media time) above the smallest one lately. */
  arrived(media) {
    const now = currentTime;
    this.lastArrival = now;
    if (typeof media !== "number") return;
    const transit = now - media;
    const arrivals = this.arrivals;
    // A timeline that jumped (a new stream whose reset was missed) starts the window again.
    if (arrivals.length && Math.abs(transit - arrivals[arrivals.length - 1]) > 2) arrivals.length = 0;
    arrivals.push(transit);
    if (arrivals.length > JITTER_FRAMES) arrivals.shift();
    if (this.dryAt !== null && Math.abs(media - this.dryAt) < 0.03) this.underruns++;
    this.dryAt = null;
    // The earliest transit of all is the base; the lateness above it of each frame not catching up (less late than
    // the frame before it) is a sample.
    const samples = arrivals.filter((t, i) => i === 0 || t >= arrivals[i - 1]).sort((a, b) => a - b);
    const jitter = samples[Math.floor(JITTER_QUANTILE * (samples.length - 1))] - Math.min(...arrivals);
    this.cushion = Math.min(MAX_CUSHION_S, Math.max(MIN_CUSHION_S, jitter + MARGIN_S));
  }

  push(samples) {
    for (let i = 0; i < samples.length; i++) {
      if (this.count >= this.capacity - 1) { this.read = (this.read + 1) % this.capacity; this.count--; }
      this.ring[(Math.floor(this.read) + this.count) % this.capacity] = samples[i];
      this.count++;
    }
  }

  process(inputs, outputs) {
    const out = outputs[0][0];
    const cushion = Math.round(this.cushion * sampleRate);
    if (!this.playing && this.count > 1) {
      // A burst starts once the cushion and a frame are here; a short tail (the end of a burst) plays when
      // nothing more came for as long.
      const waited = currentTime - this.lastArrival;
      if (this.count >= cushion + this.frame || waited > this.cushion + this.frame / sampleRate) this.playing = true;
    }
    const speed = this.playing ? this.speed(cushion) : 1;
    let level = 0;
    for (let i = 0; i < out.length; i++) {
      if (this.playing && this.count > 1) {
        const at = Math.floor(this.read);
        const fraction = this.read - at;
        out[i] = this.ring[at] * (1 - fraction) + this.ring[(at + 1) % this.capacity] * fraction;
        const step = this.quietAhead(at) ? 2 * speed : speed;
        const next = this.read + step;
        const used = Math.floor(next) - at;
        this.read = next % this.capacity;
        this.count -= used;
      } else {
        out[i] = 0;
        if (this.playing) {
          // Ran dry: wait for the cushion again (a late frame has raised it), unless this was the burst's end.
          this.playing = false;
          this.read = Math.floor(this.read);
          this.dryAt = this.mediaEnd;
        }
      }
      level += out[i] * out[i];
    }
    for (let c = 1; c < outputs[0].length; c++) outputs[0][c].set(out);
    this.observe(out, level);
    return true;
  }

  /** Faster than real time while the lowest recent level is above the cushion (an excess to drain). */
  speed(cushion) {
    this.lowest[0] = Math.min(this.lowest[0], this.count);
    if (currentTime - this.lowestSince > EXCESS_WINDOW_S) {
      this.lowest = [Infinity, this.lowest[0]];
      this.lowestSince = currentTime;
    }
    const excess = (Math.min(this.lowest[0], this.lowest[1]) - cushion) / sampleRate;
    this.draining = Number.isFinite(excess) && excess > 0.005;
    return this.draining ? 1 + Math.min(MAX_SPEED_UP, excess) : 1;
  }

  /** Whether the stretch about to be played is silence that may be skipped (only while draining an excess). */
  quietAhead(at) {
    if (!this.draining) return false;
    const sample = this.ring[at];
    return sample < QUIET && sample > -QUIET && this.count > Math.round(this.cushion * sampleRate) + 256;
  }

  /** Reports levels, the buffer and onsets to the page: every REPORT_EVERY samples while playing, and once when
   * it stops (the meter then falls to zero). */
  observe(out, level) {
    this.draining = false;
    this.onsets.observe(out);
    if (!this.playing && !this.reportedPlaying) return;
    this.levelSum += level;
    this.levelCount += out.length;
    if (this.playing && this.levelCount < REPORT_EVERY) return;
    this.port.postMessage({
      level: Math.sqrt(this.levelSum / this.levelCount), playing: this.playing,
      bufferedMs: (this.count / sampleRate) * 1000, cushionMs: this.cushion * 1000, underruns: this.underruns,
    });
    this.reportedPlaying = this.playing;
    this.levelSum = 0;
    this.levelCount = 0;
  }
}
registerProcessor("ptt-playback", PTTPlayback);
