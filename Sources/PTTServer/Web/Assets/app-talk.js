// Talking: the floor (request, grant, queue, deny, revoke), the hold-to-talk button, RTP packets out, replays.

import { $, state } from "./app-state.js";
import { control } from "./app-control.js";
import { audio } from "./app-audio.js";
import { render, words } from "./app-view.js";

const HOLD_PREROLL_PACKETS = 25; // what is said between the press and the grant (500 ms) is kept, then sent
const FRAME_SAMPLES = 960; // 20 ms at 48 kHz

// ---------------------------------------------------------------------------------------------------------
// Talking: floor requests and the hold-to-talk button

export const talk = {
  preroll: [],
  request: null, // the id of the floor-request of the press now held: answers to older requests are stale
  broadcasting: false, // whether that request is a broadcast
  sequence: Math.floor(Math.random() * 65536),
  timestamp: Math.floor(Math.random() * 0xffffffff) >>> 0,
  markerNext: true,

  press() {
    if (!state.channel || state.pressed || state.channel.member.receiveOnly) return;
    state.pressed = true;
    state.deniedCause = null;
    state.notice = null;
    state.queuePosition = null;
    this.preroll = [];
    this.markerNext = true;
    audio.prepare().then(() => audio.startEncoding()).catch((error) => { $("talk-error").textContent = `Microphone: ${error.message}`; });
    // Every press asks, even if the page still believes it holds the floor: a release just before this press may
    // not be answered yet (its floor-idle is on its way), and the server answers a holder's request with a grant.
    state.floor = "requested";
    // With "Talk to every channel" ticked the press is a broadcast: its floor-granted (no `re`) comes first.
    this.broadcasting = $("broadcast-all").checked;
    this.request = control.send(this.broadcasting ? { type: "broadcast", channel: state.channel.id, all: true }
      : { type: "floor-request", channel: state.channel.id });
    render();
  },

  /** The broadcast this press asked for was refused: nothing is sent. */
  refused() {
    state.floor = "denied";
    this.preroll = [];
    audio.stopEncoding();
  },

  release() {
    if (!state.pressed) return;
    state.pressed = false;
    audio.stopEncoding();
    this.preroll = [];
    if (state.channel && (state.floor === "granted" || state.floor === "requested" || state.floor === "queued")) {
      control.send({ type: "floor-release", channel: state.channel.id });
    }
    this.request = null; // answers to the requests before this release no longer concern the page
    if (state.floor === "granted") state.speaker = null; // given back: the floor-idle or the hand-off follows
    if (state.floor !== "idle" && state.floor !== "taken") state.floor = state.speaker ? "taken" : "idle";
    render();
  },

  /** An encoded Opus frame: sent while holding the floor, kept (up to 500 ms) while waiting for it. */
  encoded(payload) {
    if (!state.channel) return;
    const media = state.channel.media;
    const packet = new Uint8Array(12 + payload.length);
    const view = new DataView(packet.buffer);
    packet[0] = 0x80;
    packet[1] = (this.markerNext ? 0x80 : 0) | (media.payloadType & 0x7f);
    this.markerNext = false;
    view.setUint16(2, this.sequence);
    view.setUint32(4, this.timestamp);
    view.setUint32(8, media.ssrc);
    packet.set(payload, 12);
    this.sequence = (this.sequence + 1) & 0xffff;
    this.timestamp = (this.timestamp + FRAME_SAMPLES) >>> 0;
    if (state.floor === "granted") {
      if (control.sendAudio(packet)) state.stats.packetsSent++;
    } else if (state.pressed && (state.floor === "requested")) {
      this.preroll.push(packet);
      if (this.preroll.length > HOLD_PREROLL_PACKETS) this.preroll.shift();
    }
  },

  floorEvent(message) {
    if (!state.channel || !message.channel || message.channel.id !== state.channel.id) return;
    // An answer to a request made before the last release: that press is over (its release follows the answer on
    // the server), so it changes nothing here.
    if (message.re !== undefined && message.re !== this.request && message.type !== "floor-released") return;
    switch (message.type) {
      case "floor-granted":
        state.talkTimeMs = message.talkTimeMs;
        if (!state.pressed) { // released before the grant arrived: give it back
          control.send({ type: "floor-release", channel: state.channel.id });
          break;
        }
        state.floor = "granted";
        state.speaker = state.channel.member.name;
        talk.countDown(message.talkTimeMs);
        for (const packet of this.preroll) if (control.sendAudio(packet)) state.stats.packetsSent++;
        this.preroll = [];
        break;
      case "floor-denied":
        state.floor = "denied";
        state.deniedCause = message.cause;
        state.notice = words.denied(message.cause);
        this.preroll = [];
        audio.stopEncoding();
        break;
      case "floor-queued":
        state.floor = "queued";
        state.queuePosition = message.position;
        this.preroll = [];
        break;
      case "floor-queue-cancelled":
        if (state.floor === "queued") state.floor = state.speaker ? "taken" : "idle";
        state.queuePosition = null;
        break;
      case "floor-taken":
        state.speaker = message.member.name;
        state.stats.speakers.push(message.member.name);
        if (message.member.id === state.channel.member.id) {
          // Follows this page's floor-granted, which decided; after a release it is the old burst's, and stale.
          if (!state.pressed) state.speaker = null;
        } else if (state.floor !== "queued" && state.floor !== "denied") {
          state.floor = "taken";
        }
        break;
      case "floor-released":
        break;
      case "floor-idle":
        state.speaker = null;
        if (state.floor === "granted" || state.floor === "taken") state.floor = "idle";
        if (state.floor === "denied" && !state.pressed) state.floor = "idle";
        break;
      case "floor-revoked":
        state.floor = "revoked";
        state.deniedCause = message.cause;
        state.notice = words.revoked(message.cause);
        audio.stopEncoding();
        break;
      case "floor-revoke-pending":
        state.notice = `${message.by.name} takes the floor in ${Math.round(message.graceMs / 100) / 10} s`;
        break;
    }
    render();
  },

  /** Shows the talk time left while holding the floor (the server revokes it at the end). */
  countDown(talkTimeMs) {
    const until = Date.now() + talkTimeMs;
    clearInterval(this.countdown);
    state.talkTimeLeftMs = talkTimeMs;
    this.countdown = setInterval(() => {
      if (state.floor !== "granted") { clearInterval(this.countdown); state.talkTimeLeftMs = null; return render(); }
      state.talkTimeLeftMs = Math.max(0, until - Date.now());
      render();
    }, 500);
  },

  /** Hear the channel's last recorded message again (channels that record; the server says if none is). */
  replayLast() {
    if (!state.channel) return;
    $("talk-error").textContent = "";
    audio.prepare().catch(() => {});
    control.send({ type: "replay", channel: state.channel.id });
  },

  connectionLost() {
    audio.stopEncoding();
    state.pressed = false;
    state.floor = "idle";
    state.speaker = null;
    render();
  },

  reset() {
    this.preroll = [];
    state.floor = "idle";
    state.speaker = null;
    state.queuePosition = null;
    state.deniedCause = null;
    state.notice = null;
    state.pressed = false;
    audio.stopEncoding();
  },
};
