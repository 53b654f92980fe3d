// Private calls (Docs/PROTOCOL.md 5.36–5.41): ring a member of the open channel, answer or decline a call that
// rings this page, talk on the call's own channel, hang up. While a call is on, the talk screen shows it; when it
// ends, the page goes back to the channel it was in.

import { $, state } from "./app-state.js";
import { control } from "./app-control.js";
import { talk } from "./app-talk.js";
import { render, show } from "./app-view.js";

export const calls = {
  request: null, // the id of the last `call` sent, to place its refusal

  /** Rings `user` from the open channel. */
  place(user) {
    if (!state.channel || state.call) return;
    state.call = { phase: "calling", info: { callee: user }, returnTo: null };
    this.request = control.send({ type: "call", user, from: state.channel.id });
    render();
  },

  /** `call-ringing`: the callee's devices are being told. */
  ringing(message) {
    if (state.call && state.call.phase === "calling") state.call.info = message.call;
    render();
  },

  /** `call-incoming`: someone calls this user; shown until answered, declined or ended. */
  incoming(message) {
    if (state.call) return; // one call at a time: the other device, or a ring-out, ends this one
    state.call = { phase: "incoming", info: message.call, waiting: message.waiting === true, returnTo: null };
    render();
  },

  answer() {
    if (state.call && state.call.phase === "incoming") {
      state.call.phase = "answering";
      control.send({ type: "call-accept", call: state.call.info.id });
      render();
    }
  },

  decline() {
    if (state.call && state.call.phase === "incoming") control.send({ type: "call-decline", call: state.call.info.id });
  },

  hangUp() {
    if (state.call && state.call.info.id) control.send({ type: "call-hangup", call: state.call.info.id });
  },

  /** `call-connected`: the page talks on the call's channel now; the channel it was in waits. */
  connected(message) {
    const other = message.call.caller.user === state.user ? message.call.callee : message.call.caller.name;
    talk.release();
    const returnTo = state.channel;
    const members = new Map([[message.member.id, message.member]]);
    state.channel = {
      name: `Call with ${other}`, id: message.channel.id, media: message.media, member: message.member, members,
      memberCount: 2, recorded: false, emergency: null, call: true,
    };
    state.call = { phase: "connected", info: message.call, other, returnTo };
    state.floor = "idle";
    state.speaker = null;
    talk.reset();
    show("talk");
  },

  /** `call-ended`: the call is over (or never connected); back to the channel the page was in. */
  ended(message) {
    const call = state.call;
    if (!call || (call.info.id && call.info.id !== message.call.id)) return;
    state.call = null;
    if (call.phase === "connected") {
      talk.release();
      state.channel = call.returnTo;
      state.floor = "idle";
      state.speaker = null;
      talk.reset();
      show(state.channel ? "talk" : "channels");
    }
    state.notice = endedWords(message, call);
    render();
  },

  /** A new connection's `welcome`: a connected call goes on with the keys it lists (true); a call that rang is
   * forgotten (the server ends it when the connection that placed or was told of it closes). */
  reconnected(memberships) {
    const call = state.call;
    if (!call) return false;
    if (call.phase !== "connected") {
      state.call = null;
      return false;
    }
    const membership = memberships.find((m) => m.channel.id === state.channel.id);
    if (!membership) {
      this.ended({ call: { id: call.info.id }, reason: "ended" });
      return false;
    }
    state.channel.media = membership.media;
    state.channel.member = membership.member;
    return true;
  },

  /** An `error` answering this page's `call`: the call never rang. */
  refused(message) {
    if (message.re === undefined || message.re !== this.request || !state.call) return false;
    state.call = null;
    return true;
  },
};

function endedWords(message, call) {
  const who = call.other || (call.phase === "calling" ? call.info.callee : call.info.caller && call.info.caller.name);
  switch (message.reason) {
    case "declined": return `${who} declined the call.`;
    case "no-answer": return `${who} did not answer.`;
    case "hung-up": return message.by === state.user ? "You hung up." : `${who} hung up.`;
    case "silence": return "The call ended: nobody talked for a while.";
    case "answered-elsewhere": return "You answered the call on another device.";
    case "unavailable": return `${who} cannot be reached now.`;
    case "operator": return "An operator ended the call.";
    default: return "The call ended.";
  }
}

/** The call banner: who calls, who is called, or who this page talks with, and the buttons for each. */
export function renderCall() {
  const call = state.call;
  $("call-banner").hidden = !call;
  if (!call) return;
  const text = {
    calling: `Calling ${call.info.callee}…`,
    incoming: `${call.info.caller && call.info.caller.name} is calling you${call.waiting ? " (you are in a conversation)" : ""}`,
    answering: "Answering…",
    connected: `Private call with ${call.other}: nobody else hears it`,
  }[call.phase];
  $("call-text").textContent = text;
  $("call-answer").hidden = call.phase !== "incoming";
  $("call-decline").hidden = call.phase !== "incoming";
  $("call-hangup").hidden = call.phase === "incoming" || call.phase === "answering" || !call.info.id;
  $("call-hangup").textContent = call.phase === "calling" ? "Cancel" : "Hang up";
}
