// Audio: microphone → Opus → the talk module, RTP from the server → Opus → speaker; levels.

import { $, state } from "./app-state.js";
import { talk } from "./app-talk.js";

// ---------------------------------------------------------------------------------------------------------
// Audio: microphone → Opus → RTP, RTP → Opus → speaker (WebCodecs and two AudioWorklets)

export const audio = {
  context: null,
  ready: null,
  capture: null,
  playback: null,
  encoder: null,
  decoder: null,
  encoding: false,
  frameTime: 0,
  decodeTime: 0,

  /** Creates the AudioContext, worklets, microphone and codecs once (the first Join or press is a user gesture). */
  prepare() {
    if (this.ready) return this.ready;
    this.ready = (async () => {
      const context = new AudioContext({ sampleRate: 48000, latencyHint: "interactive" });
      this.context = context;
      await context.audioWorklet.addModule("/capture-worklet.js");
      await context.audioWorklet.addModule("/playback-worklet.js");
      this.playback = new AudioWorkletNode(context, "ptt-playback", { outputChannelCount: [1] });
      this.playback.connect(context.destination);
      this.decoder = new AudioDecoder({
        output: (data) => this.decoded(data),
        error: (error) => { state.stats.decodeErrors++; console.warn("decoder", error); this.resetDecoder(); },
      });
      this.decoder.configure({ codec: "opus", sampleRate: 48000, numberOfChannels: 1 });
      const stream = await navigator.mediaDevices.getUserMedia({
        audio: { channelCount: 1, echoCancellation: true, noiseSuppression: true, autoGainControl: true },
      });
      const source = context.createMediaStreamSource(stream);
      this.capture = new AudioWorkletNode(context, "ptt-capture", { numberOfInputs: 1, numberOfOutputs: 1 });
      const mute = context.createGain();
      mute.gain.value = 0;
      source.connect(this.capture).connect(mute).connect(context.destination);
      this.capture.port.onmessage = (event) => this.captured(event.data);
      this.encoder = new AudioEncoder({
        output: (chunk) => this.encodedChunk(chunk),
        error: (error) => { console.warn("encoder", error); $("talk-error").textContent = `Encoder: ${error.message}`; },
      });
      this.encoder.configure({
        codec: "opus", sampleRate: context.sampleRate, numberOfChannels: 1, bitrate: 24000,
        opus: { frameDuration: 20000, complexity: 5 },
      });
      if (context.state === "suspended") await context.resume();
    })();
    this.ready.catch(() => { this.ready = null; });
    return this.ready;
  },

  startEncoding() {
    if (this.context && this.context.state === "suspended") this.context.resume();
    this.encoding = true;
  },

  stopEncoding() { this.encoding = false; },

  captured(samples) {
    state.stats.framesCaptured++;
    const level = rms(samples);
    state.stats.micLevel = level;
    if (this.encoding) state.stats.micPeak = Math.max(state.stats.micPeak, level);
    meter("mic-meter", this.encoding ? level : 0);
    if (!this.encoding || !this.encoder || this.encoder.state !== "configured") return;
    const data = new AudioData({
      format: "f32-planar", sampleRate: this.context.sampleRate, numberOfFrames: samples.length,
      numberOfChannels: 1, timestamp: this.frameTime, data: samples,
    });
    this.frameTime += Math.round((samples.length * 1e6) / this.context.sampleRate);
    this.encoder.encode(data);
    data.close();
  },

  encodedChunk(chunk) {
    state.stats.framesEncoded++;
    const payload = new Uint8Array(chunk.byteLength);
    chunk.copyTo(payload);
    talk.encoded(payload);
  },

  /** A binary message: one RTP packet of the channel's stream. */
  received(packet) {
    if (packet.length < 12 || packet[0] >> 6 !== 2) return;
    const view = new DataView(packet.buffer, packet.byteOffset, packet.byteLength);
    const csrcCount = packet[0] & 0x0f;
    let offset = 12 + 4 * csrcCount;
    if (packet[0] & 0x10) {
      if (packet.length < offset + 4) return;
      offset += 4 + 4 * view.getUint16(offset + 2);
    }
    let end = packet.length;
    if (packet[0] & 0x20) end -= packet[packet.length - 1];
    if (offset >= end) return;
    const sequence = view.getUint16(2);
    const stats = state.stats;
    stats.packetsReceived++;
    if (stats.lastSeq !== null) {
      const step = (sequence - stats.lastSeq) & 0xffff;
      if (step === 0) { stats.duplicates++; return; }
      if (step > 0x8000) { stats.outOfOrder++; return; } // older than the last one: too late to play
    } else {
      stats.firstSeq = sequence;
    }
    stats.lastSeq = sequence;
    if (!this.decoder || this.decoder.state !== "configured") return;
    const chunk = new EncodedAudioChunk({ type: "key", timestamp: this.decodeTime, data: packet.subarray(offset, end) });
    this.decodeTime += 20000;
    try { this.decoder.decode(chunk); } catch (error) { stats.decodeErrors++; }
  },

  decoded(data) {
    state.stats.framesDecoded++;
    const samples = new Float32Array(data.numberOfFrames);
    data.copyTo(samples, { planeIndex: 0, format: "f32-planar" });
    const rate = data.sampleRate;
    data.close();
    const level = rms(samples);
    state.stats.outLevel = level;
    state.stats.outPeak = Math.max(state.stats.outPeak, level);
    meter("out-meter", level);
    if (!this.playback) return;
    const out = rate === this.context.sampleRate ? samples : resample(samples, rate, this.context.sampleRate);
    this.playback.port.postMessage(out, [out.buffer]);
  },

  resetDecoder() {
    try {
      this.decoder = new AudioDecoder({
        output: (data) => this.decoded(data), error: () => { state.stats.decodeErrors++; },
      });
      this.decoder.configure({ codec: "opus", sampleRate: 48000, numberOfChannels: 1 });
    } catch { /* keep the old one */ }
  },
};

function rms(samples) {
  let sum = 0;
  for (let i = 0; i < samples.length; i++) sum += samples[i] * samples[i];
  return Math.sqrt(sum / Math.max(1, samples.length));
}

function resample(samples, from, to) {
  const out = new Float32Array(Math.round((samples.length * to) / from));
  for (let i = 0; i < out.length; i++) {
    const x = (i * from) / to;
    const j = Math.floor(x);
    const f = x - j;
    out[i] = (samples[j] || 0) * (1 - f) + (samples[j + 1] || samples[j] || 0) * f;
  }
  return out;
}

let meterDecay = {};
function meter(id, level) {
  // Speech RMS is small: show it on a square-root scale, with a short hold so the bar is readable.
  const shown = Math.min(1, Math.sqrt(level) * 1.6);
  const previous = meterDecay[id] || 0;
  const value = Math.max(shown, previous * 0.85);
  meterDecay[id] = value;
  $(id).value = value;
}
