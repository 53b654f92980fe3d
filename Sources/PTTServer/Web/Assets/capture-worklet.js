// Microphone capture for the walkie-talkie: collects the render quantum (128 frames) into 20 ms frames of
// mono float samples and posts each to the page, which encodes it with WebCodecs while the person talks. It also
// posts the time (Date.now()) of each sound that follows 0.15 s of silence, as the playback worklet does for what
// it plays: with chirps through a fake microphone, the two give the mouth-to-ear delay from page to page.

import { OnsetDetector } from "./onset-detector.js";

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
