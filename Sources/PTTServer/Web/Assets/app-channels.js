// Channels: join, leave, and who of the channel is reachable (`presence`).

import { $, state, store } from "./app-state.js";
import { control } from "./app-control.js";
import { talk } from "./app-talk.js";
import { audio } from "./app-audio.js";
import { render, show } from "./app-view.js";
import { scan } from "./app-scan.js";

const PRESENCE_INTERVAL_MS = 3000; // how often the members' reachability is asked for while a channel is open

// ---------------------------------------------------------------------------------------------------------
// Channels

export const channels = {
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
      memberCount: message.memberCount, recorded: message.recorded === true, // replay is offered where recorded
      emergency: message.emergency || null,
    };
    store.lastChannel = message.channel.name;
    store.knownChannels = [...store.knownChannels, message.channel.name];
    if (!state.memberships.includes(message.channel.name)) state.memberships.push(message.channel.name);
    talk.reset();
    scan.reset();
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

  /** `emergency-declared` or `emergency-cleared` (null) for a channel; only the open one is shown. */
  emergency(channel, emergency, ended) {
    if (!state.channel || channel.id !== state.channel.id) return;
    state.channel.emergency = emergency;
    if (emergency && emergency.member.user === state.user) {
      state.notice = "Emergency declared: everyone in the channel is told. Hold to talk: you go first.";
    }
    if (ended) state.notice = ended;
    render();
  },

  /** `broadcast-started` (`started`) or `broadcast-ended` for a channel: its sender talks there, nobody else. */
  broadcast(message, started) {
    if (!state.channel || message.channel.id !== state.channel.id) return;
    const info = message.broadcast;
    state.channel.broadcast = started ? info : null;
    if (info.speaker.id !== state.channel.member.id) {
      // In its other channels nobody takes the floor: the sender is the one talking there.
      if (started && state.floor !== "granted") {
        state.speaker = info.speaker.name;
        state.floor = "taken";
      } else if (!started && state.floor === "taken" && state.speaker === info.speaker.name) {
        state.speaker = null;
        state.floor = "idle";
      }
    }
    render();
  },

  /** Declares an emergency on the open channel: the first press asks to press again within 5 s. */
  declareEmergency() {
    if (!state.channel) return;
    if (!state.emergencyArmedUntil || Date.now() > state.emergencyArmedUntil) {
      state.emergencyArmedUntil = Date.now() + 5000;
      setTimeout(render, 5100);
      return render();
    }
    state.emergencyArmedUntil = null;
    control.emergencyRequest = control.send({ type: "emergency", channel: state.channel.id });
    render();
  },

  clearEmergency() {
    if (state.channel) control.send({ type: "emergency-clear", channel: state.channel.id });
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
