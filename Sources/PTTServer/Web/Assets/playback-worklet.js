// Playback for the walkie-talkie: a small jitter buffer of decoded samples. Playing starts once 60 ms are
// buffered (and again after running dry); at most 1 s is kept, the oldest dropped, so a stalled tab never
// plays old audio late.
class PTTPlayback extends AudioWorkletProcessor {
  constructor() {
    super();
    this.capacity = sampleRate; // 1 s
    this.ring = new Float32Array(this.capacity);
    this.read = 0;
    this.count = 0;
    this.playing = false;
    this.start = Math.round(sampleRate * 0.06);
    this.port.onmessage = (event) => this.push(event.data);
  }

  push(samples) {
    for (let i = 0; i < samples.length; i++) {
      if (this.count === this.capacity) { this.read = (this.read + 1) % this.capacity; this.count--; }
      this.ring[(this.read + this.count) % this.capacity] = samples[i];
      this.count++;
    }
  }

  process(inputs, outputs) {
    const out = outputs[0][0];
    if (!this.playing && this.count >= this.start) this.playing = true;
    for (let i = 0; i < out.length; i++) {
      if (this.playing && this.count > 0) {
        out[i] = this.ring[this.read];
        this.read = (this.read + 1) % this.capacity;
        this.count--;
      } else {
        out[i] = 0;
        this.playing = false;
      }
    }
    for (let c = 1; c < outputs[0].length; c++) outputs[0][c].set(out);
    return true;
  }
}
registerProcessor("ptt-playback", PTTPlayback);
