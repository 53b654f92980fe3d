// The browser walkie-talkie of pttrelay. Plain JavaScript, no libraries.
//
// It speaks the control protocol of Docs/PROTOCOL.md over a WebSocket (`/ws`): each text message is one
// control message, the same JSON a control frame carries. Audio travels as binary messages, each one RTP
// packet (RFC 3550, no encryption: the WebSocket is inside TLS) with the SSRC and payload type of the
// membership's `joined`; the server bridges them to the relay, which treats this page as any member.
// Opus is encoded and decoded here with WebCodecs; AudioWorklets capture the microphone and play.
"use strict";

const HOLD_PREROLL_PACKETS = 25; // what is said between the press and the grant (500 ms) is kept, then sent
const RECONNECT_DELAYS_MS = [500, 1000, 2000, 5000];
const FRAME_SAMPLES = 960; // 20 ms at 48 kHz
const PRESENCE_INTERVAL_MS = 3000; // how often the members' reachability is asked for while a channel is open

const $ = (id) => document.getElementById(id);

/** Everything the page shows, and the counts a test reads (`window.pttPage.state`). */
const state = {
  screen: "start",
  connection: "offline", // offline | connecting | online | reconnecting
  user: null,
  channel: null, // { name, id, media, members: Map(id → member) }
  memberships: [], // channel names this device belongs to (from welcome)
  floor: "idle", // idle | requested | granted | queued | denied | taken | revoked
  speaker: null, // display name of whoever holds the floor
  queuePosition: null,
  deniedCause: null,
  talkTimeMs: null,
  talkTimeLeftMs: null,
  pressed: false,
  replay: null, // { speaker, durationMs } while a recorded message plays
  lastError: null,
  stats: {
    framesCaptured: 0, framesEncoded: 0, packetsSent: 0, packetsReceived: 0, framesDecoded: 0,
    decodeErrors: 0, outOfOrder: 0, duplicates: 0, lastSeq: null, firstSeq: null, micLevel: 0, outLevel: 0,
    micPeak: 0, outPeak: 0, reconnects: 0, speakers: [],
  },
};

// ---------------------------------------------------------------------------------------------------------
// What this browser can do

function missingFeatures() {
  const missing = [];
  if (!window.isSecureContext) missing.push("a secure page (https://)");
  if (typeof window.AudioEncoder !== "function" || typeof window.AudioDecoder !== "function") missing.push("WebCodecs audio");
  if (typeof window.AudioWorkletNode !== "function") missing.push("AudioWorklet");
  if (!navigator.mediaDevices || typeof navigator.mediaDevices.getUserMedia !== "function") missing.push("microphone access");
  if (typeof window.WebSocket !== "function") missing.push("WebSocket");
  return missing;
}

// ---------------------------------------------------------------------------------------------------------
// Credentials and this browser's device id (kept in localStorage)

const store = {
  get credentials() {
    try { return JSON.parse(localStorage.getItem("ptt.credentials") || "null"); } catch { return null; }
  },
  set credentials(value) {
    if (value) localStorage.setItem("ptt.credentials", JSON.stringify(value));
    else localStorage.removeItem("ptt.credentials");
  },
  get device() {
    let id = localStorage.getItem("ptt.device");
    if (!id) {
      const bytes = crypto.getRandomValues(new Uint8Array(8));
      id = "web-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
      localStorage.setItem("ptt.device", id);
    }
    return id;
  },
  get lastChannel() { return localStorage.getItem("ptt.channel"); },
  set lastChannel(name) {
    if (name) localStorage.setItem("ptt.channel", name); else localStorage.removeItem("ptt.channel");
  },
};

/** Redeems a sign-in link's token (`#link=TOKEN`) for a credential of this browser. */
async function redeemLink(token) {
  const response = await fetch("/api/sign-in", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ link: token }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) throw new Error(body.error || `sign-in failed (HTTP ${response.status})`);
  return { user: body.user, secret: body.secret };
}

// ---------------------------------------------------------------------------------------------------------
// The control connection

const control = {
  socket: null,
  nextId: 1,
  retry: 0,
  timer: null,
  closedByUs: false,
  heartbeatMs: 10000,
  lastHeard: 0,
  watchdog: null,

  open() {
    clearTimeout(this.timer);
    const credentials = store.credentials;
    if (!credentials) return show("signin");
    state.connection = state.connection === "offline" ? "connecting" : "reconnecting";
    render();
    const scheme = location.protocol === "https:" ? "wss:" : "ws:";
    const socket = new WebSocket(`${scheme}//${location.host}/ws`);
    socket.binaryType = "arraybuffer";
    this.socket = socket;
    this.closedByUs = false;
    socket.onopen = () => {
      this.send({ type: "hello", version: 1, user: credentials.user, secret: credentials.secret,
        device: store.device, role: "app", client: "pttrelay-web" });
    };
    socket.onmessage = (event) => {
      this.lastHeard = Date.now();
      if (typeof event.data === "string") {
        let message;
        try { message = JSON.parse(event.data); } catch { return; }
        onControl(message);
      } else {
        audio.received(new Uint8Array(event.data));
      }
    };
    socket.onclose = () => {
      if (this.socket !== socket) return;
      this.socket = null;
      clearInterval(this.watchdog);
      talk.connectionLost();
      if (this.closedByUs) { state.connection = "offline"; return render(); }
      state.connection = "reconnecting";
      state.stats.reconnects++;
      render();
      const delay = RECONNECT_DELAYS_MS[Math.min(this.retry, RECONNECT_DELAYS_MS.length - 1)];
      this.retry++;
      // Offline: wait for the network to come back (the `online` event), not for the timer.
      if (navigator.onLine !== false) this.timer = setTimeout(() => this.open(), delay);
    };
  },

  /** A link that went silent (Wi-Fi gone without a word) is noticed by the missing heartbeats: the server sends
   * one every `heartbeatIntervalMs`, so nothing at all for 2.5 of them means the connection is dead. */
  watch(heartbeatMs) {
    this.heartbeatMs = heartbeatMs;
    this.lastHeard = Date.now();
    clearInterval(this.watchdog);
    this.watchdog = setInterval(() => {
      if (this.socket && Date.now() - this.lastHeard > 2.5 * this.heartbeatMs + 1000) this.drop();
    }, 1000);
  },

  /** Gives up on the current connection (it is dead or the network is gone) and reconnects. */
  drop() {
    const socket = this.socket;
    if (!socket) return;
    socket.onclose();
    try { socket.close(4000); } catch { /* already closing */ }
  },

  close() {
    this.closedByUs = true;
    clearTimeout(this.timer);
    if (this.socket) this.socket.close(1000);
  },

  /** Sends a request; returns its id (answers carry it as `re`). */
  send(message) {
    if (!this.socket || this.socket.readyState !== WebSocket.OPEN) return null;
    if (message.type !== "hello" && message.type !== "heartbeat-ack" && message.id === undefined) message.id = this.nextId++;
    this.socket.send(JSON.stringify(message));
    return message.id;
  },

  sendAudio(packet) {
    if (this.socket && this.socket.readyState === WebSocket.OPEN && this.socket.bufferedAmount < 64 * 1024) {
      this.socket.send(packet);
      return true;
    }
    return false;
  },
};

function onControl(message) {
  switch (message.type) {
    case "welcome":
      control.retry = 0;
      control.watch(message.heartbeatIntervalMs || 10000);
      state.connection = "online";
      state.memberships = (message.memberships || []).map((m) => m.channel.name);
      state.user = store.credentials && store.credentials.user;
      if (state.channel) channels.join(state.channel.name); // a reconnect: join again (fresh keys)
      else if (store.lastChannel) channels.join(store.lastChannel); // back to where this browser was
      else show("channels");
      break;
    case "heartbeat":
      control.send({ type: "heartbeat-ack", seq: message.seq });
      break;
    case "joined":
      channels.joined(message);
      break;
    case "left":
      if (state.channel && message.channel.id === state.channel.id) {
        state.channel = null;
        talk.reset();
        $("join-error").textContent = message.reason === "left" ? "" : `You left the channel (${message.reason}).`;
        show("channels");
      }
      break;
    case "member-joined":
      if (state.channel && message.channel.id === state.channel.id) {
        if (!state.channel.members.has(message.member.id)) state.channel.memberCount = (state.channel.memberCount || 0) + 1;
        state.channel.members.set(message.member.id, message.member);
        channels.askPresence();
      }
      render();
      break;
    case "member-left":
      if (state.channel && message.channel.id === state.channel.id && state.channel.members.delete(message.member.id)) {
        state.channel.memberCount = Math.max(state.channel.members.size, (state.channel.memberCount || 1) - 1);
      }
      render();
      break;
    case "presence-report":
      channels.presence(message);
      break;
    case "replaying":
      state.replay = { speaker: message.speaker, durationMs: message.durationMs, startedAt: message.startedAt };
      render();
      break;
    case "replay-ended":
      state.replay = null;
      render();
      break;
    case "floor-granted": case "floor-denied": case "floor-queued": case "floor-queue-cancelled":
    case "floor-released": case "floor-taken": case "floor-idle": case "floor-revoked": case "floor-revoke-pending":
      talk.floorEvent(message);
      break;
    case "error":
      onError(message);
      break;
    default:
      break;
  }
}

function onError(message) {
  state.lastError = message;
  if (message.code === "bad-credentials") {
    store.credentials = null;
    control.closedByUs = true;
    $("signin-error").textContent = "Wrong user or secret: check them, or ask your operator for a new sign-in link.";
    state.connection = "offline";
    return show("signin");
  }
  if (message.code === "replaced") {
    control.closedByUs = true;
    $("talk-error").textContent = "This browser was signed in again somewhere else (another tab?): reload to use it here.";
    return render();
  }
  const friendly = {
    "no-such-recording": "Nothing recorded on this channel yet (it is not recorded, or nobody has talked).",
    "channel-busy": "Someone is talking now: live audio comes first.",
  };
  const where = state.screen === "talk" ? "talk-error" : "join-error";
  $(where).textContent = friendly[message.code] || message.message || message.code;
  render();
}

// ---------------------------------------------------------------------------------------------------------
// Channels

const channels = {
  pendingJoin: null,
  presenceTimer: null,

  /** Asks who is connected and reachable now; answered by `presence-report`. */
  askPresence() {
    if (state.channel) control.send({ type: "presence", channel: state.channel.id });
  },

  presence(report) {
    if (!state.channel || report.channel.id !== state.channel.id) return;
    const members = new Map();
    for (const member of report.members) {
      members.set(member.id, { ...member, reachable: member.audioReachable });
    }
    state.channel.members = members;
    state.channel.memberCount = report.memberCount;
    render();
  },

  join(name) {
    name = name.trim();
    if (!name) return;
    $("join-error").textContent = "";
    audio.prepare().catch((error) => { $("join-error").textContent = `Audio: ${error.message}`; });
    this.pendingJoin = control.send({ type: "join", channel: name, memberEvents: true, displayName: undefined });
  },

  joined(message) {
    const members = new Map();
    for (const member of message.members || []) members.set(member.id, member);
    state.channel = {
      name: message.channel.name, id: message.channel.id, media: message.media, member: message.member, members,
      memberCount: message.memberCount,
    };
    store.lastChannel = message.channel.name;
    if (!state.memberships.includes(message.channel.name)) state.memberships.push(message.channel.name);
    talk.reset();
    clearInterval(this.presenceTimer);
    this.presenceTimer = setInterval(() => this.askPresence(), PRESENCE_INTERVAL_MS);
    // The relay learns of this membership from its first keep-alives: ask once they have arrived, then on a timer.
    setTimeout(() => this.askPresence(), 400);
    const floor = message.floor || { state: "idle" };
    if (floor.state === "taken" && floor.holder) {
      state.floor = floor.holder.id === message.member.id ? "granted" : "taken";
      state.speaker = floor.holder.name;
    }
    show("talk");
  },

  leave() {
    clearInterval(this.presenceTimer);
    if (state.channel) control.send({ type: "leave", channel: state.channel.id });
    state.channel = null;
    store.lastChannel = null;
    talk.reset();
    show("channels");
  },
};

// ---------------------------------------------------------------------------------------------------------
// Talking: floor requests and the hold-to-talk button

const talk = {
  preroll: [],
  sequence: Math.floor(Math.random() * 65536),
  timestamp: Math.floor(Math.random() * 0xffffffff) >>> 0,
  markerNext: true,

  press() {
    if (!state.channel || state.pressed || state.channel.member.receiveOnly) return;
    state.pressed = true;
    state.deniedCause = null;
    state.queuePosition = null;
    this.preroll = [];
    this.markerNext = true;
    audio.prepare().then(() => audio.startEncoding()).catch((error) => { $("talk-error").textContent = `Microphone: ${error.message}`; });
    if (state.floor !== "granted") {
      state.floor = "requested";
      control.send({ type: "floor-request", channel: state.channel.id });
    }
    render();
  },

  release() {
    if (!state.pressed) return;
    state.pressed = false;
    audio.stopEncoding();
    this.preroll = [];
    if (state.channel && (state.floor === "granted" || state.floor === "requested" || state.floor === "queued")) {
      control.send({ type: "floor-release", channel: state.channel.id });
    }
    if (state.floor === "requested" || state.floor === "queued" || state.floor === "denied" || state.floor === "revoked") {
      state.floor = state.speaker ? "taken" : "idle";
    }
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
          state.floor = "granted";
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
        audio.stopEncoding();
        break;
      case "floor-revoke-pending":
        state.deniedCause = `${message.by.name} takes the floor in ${Math.round(message.graceMs / 100) / 10} s`;
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
    state.pressed = false;
    audio.stopEncoding();
  },
};

// ---------------------------------------------------------------------------------------------------------
// Audio: microphone → Opus → RTP, RTP → Opus → speaker (WebCodecs and two AudioWorklets)

const audio = {
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

// ---------------------------------------------------------------------------------------------------------
// Screens

function show(screen) {
  state.screen = screen;
  render();
}

function render() {
  const missing = missingFeatures();
  $("unsupported").hidden = missing.length === 0;
  if (missing.length) $("unsupported-why").textContent = `Missing here: ${missing.join(", ")}.`;
  $("signin").hidden = state.screen !== "signin";
  $("channels").hidden = state.screen !== "channels";
  $("talk").hidden = state.screen !== "talk";

  const badge = $("connection");
  badge.textContent = state.connection;
  badge.className = `badge ${state.connection}`;

  if (state.screen === "channels") {
    $("whoami").textContent = state.user || "";
    const list = $("membership-list");
    list.replaceChildren(...state.memberships.map((name) => {
      const item = document.createElement("li");
      const button = document.createElement("button");
      button.type = "button";
      button.textContent = name;
      button.onclick = () => channels.join(name);
      item.append(button);
      return item;
    }));
  }

  if (state.screen === "talk" && state.channel) {
    $("channel-title").textContent = state.channel.name;
    const speaker = $("speaker");
    if (state.floor === "granted") { speaker.textContent = "You are talking"; speaker.className = "speaker me"; }
    else if (state.speaker) { speaker.textContent = `${state.speaker} is talking`; speaker.className = "speaker other"; }
    else { speaker.textContent = "Channel idle"; speaker.className = "speaker"; }

    let note = "";
    if (state.floor === "granted" && state.talkTimeLeftMs != null) note = `${Math.ceil(state.talkTimeLeftMs / 1000)} s of talk time left`;
    if (state.floor === "requested") note = "Asking for the floor…";
    if (state.floor === "queued") note = `Queued: you are number ${state.queuePosition} in line. Keep holding.`;
    if (state.floor === "denied") note = `Floor denied (${state.deniedCause}): someone else is talking.`;
    if (state.floor === "revoked") note = `The floor was taken away (${state.deniedCause}).`;
    if (state.floor !== "denied" && state.floor !== "revoked" && state.deniedCause && state.floor !== "queued") note = state.deniedCause;
    if (state.replay) note = `Replaying ${state.replay.speaker}'s last message (${Math.round(state.replay.durationMs / 100) / 10} s)`;
    $("floor-note").textContent = note;

    const button = $("talk-button");
    const receiveOnly = state.channel.member.receiveOnly;
    button.disabled = receiveOnly || state.connection !== "online";
    button.classList.toggle("pressed", state.pressed && state.floor !== "granted");
    button.classList.toggle("talking", state.floor === "granted");
    button.classList.toggle("blocked", state.pressed && (state.floor === "denied" || state.floor === "revoked"));
    button.setAttribute("aria-pressed", state.pressed ? "true" : "false");
    button.querySelector(".talk-label").textContent = receiveOnly ? "Listen only" :
      state.floor === "granted" ? "Talking… release to stop" : "Hold to talk";

    const members = [...state.channel.members.values()];
    $("member-count").textContent = `(${Math.max(members.length, state.channel.memberCount || 0)})`;
    $("members").replaceChildren(...members.map((member) => {
      const item = document.createElement("li");
      item.dataset.member = member.id;
      const name = document.createElement("span");
      name.textContent = member.id === state.channel.member.id ? `${member.name} (you)` : member.name;
      const status = document.createElement("span");
      const talking = state.speaker === member.name && state.floor !== "idle";
      const reachable = member.reachable;
      const wakeable = member.wakeRoute && member.wakeRoute !== "none";
      status.className = `state ${talking ? "talking" : reachable || wakeable ? "reachable" : ""}`;
      status.textContent = talking ? "talking"
        : reachable === undefined ? "…"
        : reachable ? "hears the channel"
        : wakeable ? "asleep: woken when someone talks"
        : "not reachable";
      status.dataset.reachable = reachable ? "yes" : "no";
      item.append(name, status);
      return item;
    }));
  }
}

// ---------------------------------------------------------------------------------------------------------
// Wiring

function wire() {
  $("signin-form").addEventListener("submit", (event) => {
    event.preventDefault();
    signIn($("user").value.trim(), $("secret").value);
  });
  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    channels.join($("channel-name").value);
  });
  $("leave-button").addEventListener("click", () => channels.leave());
  $("replay-button").addEventListener("click", () => talk.replayLast());
  $("signout").addEventListener("click", (event) => {
    event.preventDefault();
    store.credentials = null;
    store.lastChannel = null;
    state.channel = null;
    control.close();
    show("signin");
  });

  const button = $("talk-button");
  button.addEventListener("pointerdown", (event) => {
    event.preventDefault();
    button.setPointerCapture(event.pointerId);
    talk.press();
  });
  for (const type of ["pointerup", "pointercancel", "lostpointercapture"]) button.addEventListener(type, () => talk.release());
  button.addEventListener("contextmenu", (event) => event.preventDefault());
  document.addEventListener("keydown", (event) => {
    if (event.code !== "Space" || event.repeat || state.screen !== "talk") return;
    if (event.target instanceof HTMLInputElement) return;
    event.preventDefault();
    talk.press();
  });
  document.addEventListener("keyup", (event) => {
    if (event.code !== "Space" || state.screen !== "talk") return;
    event.preventDefault();
    talk.release();
  });
  window.addEventListener("blur", () => talk.release());
  // Browsers start audio only after a gesture: any tap or key lets the page play what the channel says.
  const resume = () => { if (audio.context && audio.context.state === "suspended") audio.context.resume(); };
  document.addEventListener("pointerdown", resume);
  document.addEventListener("keydown", resume);
  document.addEventListener("visibilitychange", () => { if (document.hidden) talk.release(); });
  window.addEventListener("online", () => { if (!control.socket && store.credentials) control.open(); });
  window.addEventListener("offline", () => control.drop());
}

function signIn(user, secret) {
  $("signin-error").textContent = "";
  store.credentials = { user, secret };
  state.connection = "offline";
  control.open();
}

async function start() {
  wire();
  const missing = missingFeatures();
  if (missing.length) { state.screen = "unsupported"; return render(); }
  const link = new URLSearchParams(location.hash.slice(1)).get("link");
  if (link) {
    history.replaceState(null, "", location.pathname); // the link works once: never keep it in the address bar
    try {
      store.credentials = await redeemLink(link);
    } catch (error) {
      $("signin-error").textContent = error.message;
      return show("signin");
    }
  }
  if (store.credentials) control.open(); else show("signin");
  const channel = store.lastChannel;
  if (channel) $("channel-name").value = channel;
}

/** For people who script the page, and for the tests: state, counts, and the button without a pointer. */
window.pttPage = {
  state,
  press: () => talk.press(),
  release: () => talk.release(),
  join: (name) => channels.join(name),
  replayLast: () => talk.replayLast(),
  leave: () => channels.leave(),
  signIn,
  dropConnection: () => control.drop(),
};

start();
