// The page's playback worklet (Sources/PTTServer/Web/Assets/playback-worklet.js) outside a browser: its jitter
// buffer's cushion after each of a few arrival patterns, with the audio clock (`currentTime`) driven here.
//
// Usage: node playback_cushion.mjs PATH_TO/playback-worklet.js
// Prints one JSON line: { "PATTERN": cushion in ms after it, ... }. Each pattern is 20 ms frames of media time,
// arriving at the times it says; the Swift test (PlaybackCushionTests) judges the figures.

import { pathToFileURL } from "node:url";

globalThis.sampleRate = 48000;
globalThis.currentTime = 0;
class AudioWorkletProcessor {
  constructor() { this.port = { postMessage() {}, onmessage: null }; }
}
globalThis.AudioWorkletProcessor = AudioWorkletProcessor;
let Processor = null;
globalThis.registerProcessor = (name, processor) => { Processor = processor; };
await import(pathToFileURL(process.argv[2]).href);
if (!Processor) throw new Error("the worklet registered no processor");

const FRAME = 0.02;
const BASE = 0.05; // the transit of a frame on time

/** Feeds frames [media, arrival] (s) in order of arrival to a new player; returns its cushion in ms. */
function cushionAfter(frames) {
  const player = new Processor();
  for (const [media, arrival] of frames) {
    globalThis.currentTime = arrival;
    player.received({ samples: new Float32Array(Math.round(FRAME * sampleRate)), media });
  }
  return Math.round(player.cushion * 1000 * 10) / 10;
}

/** `count` frames from media time `from`, each arriving at media + BASE + late(i). */
function frames(from, count, late = () => 0) {
  return Array.from({ length: count }, (_, i) => [from + i * FRAME, from + i * FRAME + BASE + late(i)]);
}

/** A seeded generator in [0, 1) (the same figures every run). */
function random(seed) {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

/** 2 s on time, then a stall of `stall` s whose backlog arrives `spacing` s apart, then 2 s on time. */
function stalled(stall, spacing) {
  const before = frames(0, 100);
  const resumed = 100 * FRAME + stall; // when the backlog starts to arrive
  const backlog = [];
  for (let i = 0; 100 * FRAME + i * FRAME + BASE < resumed + i * spacing; i++) {
    backlog.push([(100 + i) * FRAME, resumed + i * spacing]);
  }
  const next = 100 + backlog.length;
  return [...before, ...backlog, ...frames(next * FRAME, 100)];
}

/** Stalls of `stall` s every `period` s, over 3 s, each backlog arriving at once. */
function recurring(stall, period) {
  const out = [];
  let clock = 0;
  for (let i = 0; i < 150; i++) {
    const media = i * FRAME;
    const due = media + BASE;
    const phase = media % period;
    const late = phase < stall ? stall - phase : 0; // held until the stall ends
    clock = Math.max(clock, due + late);
    out.push([media, clock]);
  }
  return out;
}

const uniform = random(23);
const results = {
  steady: cushionAfter(frames(0, 200)),
  jitter40: cushionAfter(frames(0, 300, () => 0.04 * uniform())),
  pairs: cushionAfter(frames(0, 200, (i) => (i % 2 === 0 ? FRAME : 0))),
  stallAtOnce: cushionAfter(stalled(0.5, 0)),
  stallCatchingUp: cushionAfter(stalled(0.5, 0.012)),
  recurringStalls: cushionAfter(recurring(0.2, 0.3)),
};
console.log(JSON.stringify(results));
