// The control connection: the WebSocket, hello, heartbeats, reconnects, and where each message goes.

import { $, state, store } from "./app-state.js";
import { channels } from "./app-channels.js";
import { talk } from "./app-talk.js";
import { calls } from "./app-calls.js";
import { scan } from "./app-scan.js";
import { audio } from "./app-audio.js";
import { render, show, words } from "./app-view.js";

const RECONNECT_DELAYS_MS = [500, 1000, 2000, 5000];

// ---------------------------------------------------------------------------------------------------------
// The control connection

export const control = {
  socket: null,
  nextId: 1,
  /** The channel each recent channel-bound request was about, by id (the last 64), to place their errors. */
  requestChannels: new Map(),
  /** The id of the last `emergency` sent, to word its refusal. */
  emergencyRequest: null,
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
    if (message.id !== undefined && message.channel !== undefined && message.type !== "join") {
      this.requestChannels.set(message.id, message.channel);
      if (this.requestChannels.size > 64) this.requestChannels.delete(this.requestChannels.keys().next().value);
    }
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
      // Back online: what was said about the connection that ended (shutting down, gone quiet) is over.
      $("talk-error").textContent = "";
      $("join-error").textContent = "";
      control.watch(message.heartbeatIntervalMs || 10000);
      state.connection = "online";
      state.memberships = (message.memberships || []).map((m) => m.channel.name);
      scan.reset(); // a new connection: the server holds no scan list for it
      state.user = store.credentials && store.credentials.user;
      if (calls.reconnected(message.memberships || [])) show("talk"); // a call goes on, with its new keys
      else if (state.channel) channels.join(state.channel.name); // a reconnect: join again (fresh keys)
      else if (store.lastChannel) channels.join(store.lastChannel); // back to where this browser was
      else show("channels");
      render(); // the badge says "online" now, not once the join is answered
      break;
    case "heartbeat":
      control.send({ type: "heartbeat-ack", seq: message.seq });
      break;
    case "joined":
      if (!scan.joined(message)) channels.joined(message);
      break;
    case "scan-switched":
      scan.switched(message);
      break;
    case "left":
      if (state.channel && message.channel.id === state.channel.id) {
        state.channel = null;
        talk.reset();
        $("join-error").textContent = message.reason === "left" ? "" : words.left(message.reason);
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
    case "emergency-declared":
      channels.emergency(message.channel, message.emergency);
      break;
    case "emergency-cleared":
      channels.emergency(message.channel, null,
        `The emergency is over: ${message.by === "operator" ? "an operator" : message.name} ended it.`);
      break;
    case "broadcast-started":
      channels.broadcast(message, true);
      break;
    case "broadcast-ended":
      channels.broadcast(message, false);
      break;
    case "call-ringing":
      calls.ringing(message);
      break;
    case "call-incoming":
      calls.incoming(message);
      break;
    case "call-connected":
      calls.connected(message);
      break;
    case "call-ended":
      calls.ended(message);
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
    $("signin-error").textContent = "Wrong user name or password: check them, or ask your operator for a new sign-in link.";
    state.connection = "offline";
    return show("signin");
  }
  if (message.code === "replaced") {
    control.closedByUs = true;
    $("talk-error").textContent = "This browser was signed in again somewhere else (another tab?): reload to use it here.";
    return render();
  }
  const about = message.re === undefined ? undefined : control.requestChannels.get(message.re);
  if (message.code === "not-a-member" && about !== undefined && (!state.channel || state.channel.id !== about)) {
    // A request sent just before the page was taken out of that channel (its presence poll, say): the `left`
    // that came first already said why, and this answer must not replace it.
    console.info(`not-a-member for channel ${about}, which this page has left already`);
    return;
  }
  calls.refused(message);
  const where = state.screen === "talk" ? "talk-error" : "join-error";
  const aboutEmergency = message.re !== undefined && message.re === control.emergencyRequest;
  const aboutBroadcast = message.re !== undefined && message.re === talk.request && talk.broadcasting;
  if (aboutBroadcast) talk.refused();
  $(where).textContent = aboutEmergency ? words.emergencyError(message.code, message.message)
    : aboutBroadcast ? words.broadcastError(message.code, message.message)
    : words.error(message.code, message.message);
  render();
}
