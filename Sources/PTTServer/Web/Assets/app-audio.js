// Audio: microphone → Opus → the talk module, RTP from the server → Opus → speaker; levels.

import { $, state } from "./app-state.js";
import { talk } from "./app-talk.js";

const REORDER_WINDOW = 50; // packets (1 s of 20 ms frames): one this far behind the newest is late, not a new stream
const STREAM_JUMP = 3000; // packets ahead (a minute): the stream started again
const ONSETS_KEPT = 400; // [Date.now(), zero crossings 10–30 ms after] of sounds after silence, on each side

// The audio path's own counts, beside the page's (`window.pttPage.state.stats`).
Object.assign(state.stats, {
  streams: 0, bufferedMs: 0, cushionMs: 0, underruns: 0, captureOnsets: [], playOnsets: [],
});

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
  stream: null, // the stream being heard: { media (the joined's), ssrc, lastSeq, lastTs, mediaTs }

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
      this.playback.port.onmessage = (event) => this.played(event.data);
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
    if (samples.onset !== undefined) return keep(state.stats.captureOnsets, samples.onset);
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
    const timestamp = view.getUint32(4);
    const ssrc = view.getUint32(8);
    const stats = state.stats;
    stats.packetsReceived++;
    const stream = this.stream;
    const media = state.channel && state.channel.media;
    if (!stream || stream.media !== media || stream.ssrc !== ssrc) {
      this.newStream(sequence, timestamp, ssrc, media);
    } else {
      const step = (sequence - stream.lastSeq) & 0xffff;
      if (step === 0) { stats.duplicates++; return; }
      const behind = 0x10000 - step;
      if (step > 0x8000 && behind <= REORDER_WINDOW) { stats.outOfOrder++; return; } // too late to play
      // Far behind or far ahead: the relay started again (a restart counts from its first number again).
      if (step > 0x8000 || step > STREAM_JUMP) this.newStream(sequence, timestamp, ssrc, media);
    }
    this.advance(sequence, timestamp);
    if (!this.decoder || this.decoder.state !== "configured") return;
    // The chunk's timestamp is the packet's media time: the decoded frame carries it to the jitter buffer.
    const micros = Math.round((this.stream.mediaTs * 1e6) / 48000);
    const chunk = new EncodedAudioChunk({ type: "key", timestamp: micros, data: packet.subarray(offset, end) });
    try { this.decoder.decode(chunk); } catch (error) { stats.decodeErrors++; }
  },

  /** A stream starts: the first packet ever, after a `joined` (a join, or a reconnect that joined again), from
   * another SSRC, or sequence numbers far from the last (a restarted relay counts again from its first number). */
  newStream(sequence, timestamp, ssrc, media) {
    this.stream = { media, ssrc, lastSeq: sequence, lastTs: timestamp, mediaTs: 0 };
    state.stats.streams++;
    state.stats.firstSeq = sequence;
    if (this.playback) this.playback.port.postMessage({ reset: true });
  },

  /** The packet is the stream's newest: its sequence number is the last, its timestamp extends the timeline. */
  advance(sequence, timestamp) {
    const stream = this.stream;
    stream.mediaTs += (timestamp - stream.lastTs) | 0; // RTP timestamps wrap at 2^32
    stream.lastTs = timestamp;
    stream.lastSeq = sequence;
    state.stats.lastSeq = sequence;
  },

  decoded(data) {
    state.stats.framesDecoded++;
    const samples = new Float32Array(data.numberOfFrames);
    data.copyTo(samples, { planeIndex: 0, format: "f32-planar" });
    const rate = data.sampleRate;
    const media = data.timestamp / 1e6;
    data.close();
    const level = rms(samples);
    state.stats.outPeak = Math.max(state.stats.outPeak, level);
    if (!this.playback) return;
    const out = rate === this.context.sampleRate ? samples : resample(samples, rate, this.context.sampleRate);
    this.playback.port.postMessage({ samples: out, media }, [out.buffer]);
  },

  /** What the playback worklet says: the level of what it played (the meter shows what is heard, and drops to
   * zero when the burst has been played), the buffer, and onsets. */
  played(report) {
    const stats = state.stats;
    if (report.onset !== undefined) return keep(stats.playOnsets, report.onset);
    stats.bufferedMs = report.bufferedMs;
    stats.cushionMs = report.cushionMs;
    stats.underruns = report.underruns;
    stats.outLevel = report.playing ? report.level : 0;
    if (report.playing) meter("out-meter", report.level);
    else clearMeter("out-meter");
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

// The level of a block of samples; 0 for an empty block or one with a non-number in it (a NaN level would stick
// in every peak after it, and is not JSON).
function rms(samples) {
  const count = samples.length || 0;
  if (count === 0) return 0;
  let sum = 0;
  for (let i = 0; i < count; i++) sum += samples[i] * samples[i];
  const level = Math.sqrt(sum / count);
  return Number.isFinite(level) ? level : 0;
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

function keep(list, value) {
  list.push(value);
  if (list.length > ONSETS_KEPT) list.shift();
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

function clearMeter(id) {
  meterDecay[id] = 0;
  $(id).value = 0;
}
