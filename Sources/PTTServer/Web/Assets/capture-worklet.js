// Microphone capture for the walkie-talkie: collects the render quantum (128 frames) into 20 ms frames of
// mono float samples and posts each to the page, which encodes it with WebCodecs while the person talks. It also
// posts the time (Date.now()) of each sound that follows 0.15 s of silence, as the playback worklet does for what
// it plays: with chirps through a fake microphone, the two give the mouth-to-ear delay from page to page.

const QUIET = 0.004;
const ONSET = 0.1;

/** The time of each sound after 0.15 s of silence (the first render quantum above ONSET within 30 ms of the
 * silence's end: a chirp's ramp may span two quanta), and its zero crossings from 10 to 30 ms after, which tell
 * one chirp's tone from another's. The same class is in playback-worklet.js: each worklet is one file the page
 * loads. */
class OnsetDetector {
  constructor(report) {
    this.report = report;
    this.quietFor = 0;
    this.armedFor = -1; // samples since a silence ended, or -1
    this.measured = -1; // samples of the sound whose crossings are being counted, or -1
    this.crossings = 0;
    this.sign = 0;
    this.at = 0;
  }

  observe(samples) {
    if (this.measured >= 0) this.count(samples);
    let peak = 0;
    for (let i = 0; i < samples.length; i++) peak = Math.max(peak, Math.abs(samples[i]));
    if (peak < QUIET) {
      this.quietFor += samples.length;
      this.armedFor = -1;
      return;
    }
    if (this.quietFor >= 0.15 * sampleRate) this.armedFor = 0;
    this.quietFor = 0;
    if (this.armedFor < 0) return;
    if (peak > ONSET) {
      this.at = Date.now();
      this.armedFor = -1;
      this.measured = 0;
      this.crossings = 0;
      this.sign = 0;
      this.count(samples);
    } else {
      this.armedFor += samples.length;
      if (this.armedFor > 0.03 * sampleRate) this.armedFor = -1;
    }
  }

  /** Counts the crossings from 10 to 30 ms after the onset (past the ramp and what audio processing does to it). */
  count(samples) {
    for (let i = 0; i < samples.length && this.measured < 0.03 * sampleRate; i++, this.measured++) {
      if (this.measured < 0.01 * sampleRate) continue;
      const sign = samples[i] > 0.001 ? 1 : samples[i] < -0.001 ? -1 : 0;
      if (sign !== 0 && this.sign !== 0 && sign !== this.sign) this.crossings++;
      if (sign !== 0) this.sign = sign;
    }
    if (this.measured >= 0.03 * sampleRate) {
      this.report(this.at, this.crossings);
      this.measured = -1;
    }
  }
}

class PTTCapture extends AudioWorkletProcessor {
  constructor() {
    super();
    this.size = Math.round(sampleRate * 0.02);
    this.frame = new Float32Array(this.size);
    this.filled = 0;
    this.onsets = new OnsetDetector((at, crossings) => this.port.postMessage({ onset: [at, crossings] }));
  }

  process(inputs) {
    const input = inputs[0];
    if (!input || input.length === 0) return true;
    const channel = input[0];
    this.onsets.observe(channel);
    let offset = 0;
    while (offset < channel.length) {
      const count = Math.min(channel.length - offset, this.size - this.filled);
      this.frame.set(channel.subarray(offset, offset + count), this.filled);
      this.filled += count;
      offset += count;
      if (this.filled === this.size) {
        // The frame's buffer moves to the page (no copy); a transferred array has length 0 here afterwards.
        this.port.postMessage(this.frame, [this.frame.buffer]);
        this.frame = new Float32Array(this.size);
        this.filled = 0;
      }
    }
    return true;
  }

}
registerProcessor("ptt-capture", PTTCapture);
