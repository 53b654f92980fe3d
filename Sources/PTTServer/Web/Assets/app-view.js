// The screens: sign-in, channels, talk; everything shown comes from `state`.

import { $, state, store, missingFeatures } from "./app-state.js";
import { channels } from "./app-channels.js";
import { calls, renderCall } from "./app-calls.js";

// ---------------------------------------------------------------------------------------------------------
// Words: what the server's codes mean to a person (the codes themselves never reach the screen)

export const words = {
  denied(cause) {
    return {
      "receive-only": "Floor denied: you can listen on this channel, not talk.",
      "only-one-participant": "Floor denied: nobody else is in this channel yet.",
      "queue-full": "Floor denied: too many people are waiting to talk. Try again in a moment.",
      "broadcast": "Floor denied: a broadcast is on. Try again when it ends.",
    }[cause] || "Floor denied: someone else is talking. Try again when they stop.";
  },
  revoked(cause) {
    return {
      "end-of-media": "Your turn ended: the channel heard no sound from you for a while.",
      "talk-time-exceeded": "Your turn ended: that was the longest anyone may talk at once.",
      "preempted": "Your turn ended: someone with priority needed to talk.",
      "revoked-by-operator": "An operator ended your turn.",
      "emergency": "Your turn ended: someone declared an emergency and talks now.",
      "broadcast": "Your turn ended: a broadcast to this channel began.",
    }[cause] || "Your turn ended.";
  },
  left(reason) {
    return {
      "kicked": "An operator took you out of this channel. You can join it again.",
      "channel-deleted": "An operator deleted this channel.",
      "user-removed": "Your account was removed.",
    }[reason] || "You are no longer in this channel.";
  },
  emergencyError(code, message) {
    return {
      "not-permitted": "You may not declare an emergency: ask your operator for that right.",
      "bad-request": "You can only listen on this channel, so you cannot declare an emergency.",
    }[code] || message || "The emergency could not be declared: try again.";
  },
  broadcastError(code, message) {
    return {
      "not-permitted": "You may not talk to every channel: ask your operator for the broadcast right.",
      "channel-busy": `Not now: ${message}`,
    }[code] || message || "The broadcast could not start: try again.";
  },
  error(code, message) {
    return {
      "no-such-recording": "Nothing recorded on this channel yet.",
      "channel-busy": "Someone is talking now: live audio comes first.",
      "shutting-down": "The server is restarting or stopping: the page reconnects by itself.",
      "heartbeat-timeout": "The connection went quiet: reconnecting.",
      "no-such-channel": "There is no channel of that name.",
      "not-a-member": "You are not in this channel any more: join it again.",
      "internal": "The server could not do that just now: try again.",
    }[code] || message || "Something went wrong: try again.";
  },
};

/** Phones and tablets: the primary pointer is a finger and nothing hovers, so there is no space bar to mention. */
const touchOnly = () => window.matchMedia("(pointer: coarse) and (hover: none)").matches;

// ---------------------------------------------------------------------------------------------------------
// Screens

export function show(screen) {
  state.screen = screen;
  render();
}

export function render() {
  const missing = missingFeatures();
  $("unsupported").hidden = missing.length === 0;
  if (missing.length) $("unsupported-why").textContent = `Missing here: ${missing.join(", ")}.`;
  $("signin").hidden = state.screen !== "signin";
  $("channels").hidden = state.screen !== "channels";
  $("talk").hidden = state.screen !== "talk";

  const badge = $("connection");
  badge.textContent = state.connection;
  badge.className = `badge ${state.connection}`;
  $("page-note").textContent = state.pageNote || "";
  renderCall();

  if (state.screen === "channels") {
    $("whoami").textContent = state.user || "";
    // This browser's memberships first, then the user's other channels the server named at sign-in.
    const offered = [...new Set([...state.memberships, ...store.knownChannels])];
    $("channel-picks").hidden = offered.length === 0;
    $("channel-name-label").textContent = offered.length ? "Another channel, by name" : "Channel name";
    $("known-channels").replaceChildren(...offered.map((name) => Object.assign(document.createElement("option"), { value: name })));
    const list = $("membership-list");
    list.replaceChildren(...offered.map((name) => {
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

    // What happened last (denied, revoked, a pre-emption coming) stays until the next press; what is going on
    // now (asking, queued, talk time left) comes first.
    let note = state.notice || "";
    if (state.floor === "granted" && state.talkTimeLeftMs != null && !state.notice) note = `${Math.ceil(state.talkTimeLeftMs / 1000)} s of talk time left`;
    if (state.floor === "requested") note = "Asking for the floor…";
    if (state.floor === "queued") note = `Queued: you are number ${state.queuePosition} in line. Keep holding.`;
    if (state.replay) note = `Replaying ${state.replay.speaker}'s last message (${Math.round(state.replay.durationMs / 100) / 10} s)`;
    $("floor-note").textContent = note;

    const button = $("talk-button");
    const receiveOnly = state.channel.member.receiveOnly;
    button.disabled = receiveOnly || state.connection !== "online";
    button.classList.toggle("pressed", state.pressed && state.floor !== "granted");
    button.classList.toggle("talking", state.floor === "granted");
    const blocked = state.pressed && (state.floor === "denied" || state.floor === "revoked");
    button.classList.toggle("blocked", blocked);
    button.setAttribute("aria-pressed", state.pressed ? "true" : "false");
    button.querySelector(".talk-label").textContent = receiveOnly ? "Listen only"
      : state.floor === "granted" ? "Talking… release to stop"
      : blocked && state.floor === "revoked" ? "Your turn is over: let go"
      : blocked ? "Not now: let go"
      : "Hold to talk";
    button.querySelector(".talk-hint").hidden = touchOnly() || receiveOnly || blocked;
    const inCall = state.channel.call === true;
    $("leave-button").hidden = inCall;
    $("replay-button").hidden = !state.channel.recorded || inCall;
    const broadcast = state.channel.broadcast;
    $("broadcast-banner").hidden = !broadcast;
    if (broadcast) {
      const others = broadcast.channels.filter((name) => name !== state.channel.name).join(", ");
      $("broadcast-text").textContent = broadcast.speaker.id === state.channel.member.id
        ? `Broadcasting: every member of ${broadcast.channels.join(", ")} hears you.`
        : `Broadcast from ${broadcast.speaker.name} (also to ${others}): nobody else talks until it ends.`;
    }
    $("broadcast-all").parentElement.hidden = receiveOnly || inCall;
    renderScan(inCall);
    const emergency = state.channel.emergency;
    $("emergency-banner").hidden = !emergency;
    if (emergency) {
      const level = emergency.level === "imminent-peril" ? "Imminent peril" : "Emergency";
      const mine = emergency.member.user === state.user;
      $("emergency-text").textContent = mine ? `${level}: you declared it. Everyone in the channel was told.`
        : `${level}: ${emergency.member.name} needs help. They talk first.`;
      $("emergency-clear").hidden = !mine;
    }
    const armed = state.emergencyArmedUntil && Date.now() <= state.emergencyArmedUntil;
    const emergencyButton = $("emergency-button");
    emergencyButton.hidden = receiveOnly || inCall || (emergency && emergency.member.user === state.user);
    emergencyButton.textContent = armed ? "Press again to declare an emergency" : "Emergency";

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
      if (!inCall && !state.call && member.user && member.user !== state.user) {
        const call = document.createElement("button");
        call.type = "button";
        call.className = "link";
        call.textContent = "Call";
        call.dataset.testid = `call-${member.user}`;
        call.onclick = () => calls.place(member.user);
        item.append(call);
      }
      return item;
    }));
  }
}

/** The talk screen's "Also hear": this user's other channels, each with a tick, and which one is heard now. */
function renderScan(inCall) {
  const others = [...new Set([...state.memberships, ...store.knownChannels])].filter((name) => name !== state.channel.name);
  $("scan-box").hidden = inCall || others.length === 0;
  $("scan-list").replaceChildren(...others.map((name) => {
    const item = document.createElement("li");
    const label = document.createElement("label");
    const box = Object.assign(document.createElement("input"), { type: "checkbox", checked: state.scan.channels.includes(name) });
    box.dataset.testid = `scan-${name}`;
    box.onchange = () => window.pttPage.scan(name, box.checked);
    label.append(box, ` ${name}`);
    item.append(label);
    return item;
  }));
  const hearing = state.scan.hearing;
  $("scan-note").textContent = state.scan.channels.length === 0 ? ""
    : hearing && hearing !== state.channel.name ? `Hearing ${hearing} now; ${state.channel.name} comes first when it talks.`
    : `Also hearing ${state.scan.channels.join(", ")} when ${state.channel.name} is quiet.`;
}
