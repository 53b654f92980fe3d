// The screens: sign-in, channels, talk; everything shown comes from `state`.

import { $, state, missingFeatures } from "./app-state.js";
import { channels } from "./app-channels.js";

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
