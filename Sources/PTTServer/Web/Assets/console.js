// The operator console of pttrelay: every channel, live, from the admin API (Docs/PROTOCOL.md section 9).
// Plain JavaScript. The admin token is asked for once and kept in this tab's sessionStorage; every call sends it
// as `Authorization: Bearer`. The console polls about once a second (not while the tab is hidden), backs off
// while the server is unreachable, and counts talk time down between polls.
"use strict";

const POLL_MS = 1000;
const METRICS_EVERY = 2; // polls
const CONFIRM_MS = 5000; // a destructive button asks to be clicked again within this long

const $ = (id) => document.getElementById(id);

/** What the console shows, for tests and scripts: `window.pttConsole`. */
const view = {
  ready: false,
  polls: 0,
  lastError: null,
  channels: [], // ChannelDetail objects
  wakes: null,
  figures: {},
  polledAt: 0,
};

class Unauthorized extends Error {}

const api = {
  get token() { return sessionStorage.getItem("pttConsoleToken"); },
  set token(value) {
    if (value) sessionStorage.setItem("pttConsoleToken", value); else sessionStorage.removeItem("pttConsoleToken");
  },

  async call(method, path, { text = false } = {}) {
    const response = await fetch(path, { method, headers: { authorization: `Bearer ${this.token}` } });
    if (response.status === 401) throw new Unauthorized();
    if (!response.ok) {
      const body = await response.json().catch(() => ({}));
      throw new Error(body.message || `${method} ${path}: HTTP ${response.status}`);
    }
    if (response.status === 204) return null;
    return text ? response.text() : response.json();
  },
};

// ---------------------------------------------------------------------------------------------------------
// Polling

let timer = null;
let failures = 0;

async function poll() {
  clearTimeout(timer);
  if (!api.token) return showSignIn();
  if (document.hidden) { timer = setTimeout(poll, POLL_MS); return; }
  try {
    const summaries = await api.call("GET", "/api/channels");
    const details = await Promise.all(summaries.map((c) => api.call("GET", `/api/channels/${encodeURIComponent(c.id)}`)
      .catch(() => null)));
    view.channels = details.filter(Boolean);
    view.wakes = await api.call("GET", "/api/wakes");
    if (view.polls % METRICS_EVERY === 0) view.figures = parseMetrics(await api.call("GET", "/metrics", { text: true }));
    view.polls++;
    view.polledAt = Date.now();
    view.ready = true;
    view.lastError = null;
    failures = 0;
    setStatus(`live · ${new Date().toLocaleTimeString()}`, "live");
    render();
    timer = setTimeout(poll, POLL_MS);
  } catch (error) {
    if (error instanceof Unauthorized) {
      api.token = null;
      view.ready = false;
      $("signin-error").textContent = "Wrong admin token: use the contents of <data dir>/admin-token on the server.";
      return showSignIn();
    }
    failures++;
    view.lastError = String(error.message || error);
    setStatus(`server unreachable (${view.lastError}); retrying`, "down");
    timer = setTimeout(poll, Math.min(POLL_MS * 2 ** failures, 15000));
  }
}

/** The figures the console shows, from the Prometheus text of `/metrics`. */
function parseMetrics(text) {
  const sums = {};
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-z_]+)(\{[^}]*\})?\s+([0-9.eE+-]+)$/.exec(line);
    if (!match) continue;
    const [, name, labels = "", value] = match;
    sums[name] = (sums[name] || 0) + Number(value);
    sums[name + labels] = Number(value);
  }
  const sum = (name) => sums[name] || 0;
  return {
    "control connections": sum("ptt_control_connections"),
    "browser members": sum("ptt_web_sessions"),
    "members": sum("ptt_members"),
    "packets relayed": sum("ptt_media_packets_forwarded_total"),
    "packets dropped": sum("ptt_media_packets_dropped_total"),
    "dropped: not holder": sums['ptt_media_packets_dropped_total{reason="not-floor-holder"}'] || 0,
    "dropped: authentication": sums['ptt_media_packets_dropped_total{reason="authentication"}'] || 0,
    "browser audio dropped": sum("ptt_web_media_dropped_total"),
    "connections refused": sum("ptt_control_connections_refused_total") + sum("ptt_web_connections_refused_total"),
  };
}

// ---------------------------------------------------------------------------------------------------------
// Actions

const pending = new Map(); // button key → time of the first click

/** Runs `action` on the second click of a button within CONFIRM_MS (the first asks to confirm). */
function confirmThen(button, key, label, action) {
  const first = pending.get(key);
  if (!first || Date.now() - first > CONFIRM_MS) {
    pending.set(key, Date.now());
    button.textContent = `Click again to ${label}`;
    button.classList.add("confirm");
    setTimeout(render, CONFIRM_MS + 50); // back to the plain label if not confirmed
    return;
  }
  pending.delete(key);
  $("action-error").textContent = "";
  action().then(poll).catch((error) => {
    if (error instanceof Unauthorized) return poll();
    $("action-error").textContent = error.message;
  });
}

function revoke(channel) {
  return api.call("POST", `/api/channels/${encodeURIComponent(channel.id)}/revoke`);
}

function kick(channel, member) {
  return api.call("DELETE", `/api/channels/${encodeURIComponent(channel.id)}/members/${encodeURIComponent(member.id)}`);
}

// ---------------------------------------------------------------------------------------------------------
// Rendering

function element(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(attributes)) {
    if (key === "class") node.className = value;
    else if (key.startsWith("data-")) node.setAttribute(key, value);
    else if (key === "onclick") node.onclick = value;
    else node[key] = value;
  }
  for (const child of children) if (child !== null && child !== undefined) node.append(child);
  return node;
}

function setStatus(text, kind) {
  const status = $("status");
  status.textContent = text;
  status.className = `status ${kind || ""}`;
}

function ago(iso) {
  if (!iso) return "–";
  const seconds = Math.max(0, Math.round((Date.now() - Date.parse(iso)) / 1000));
  if (seconds < 60) return `${seconds} s ago`;
  if (seconds < 3600) return `${Math.round(seconds / 60)} min ago`;
  return `${Math.round(seconds / 3600)} h ago`;
}

function render() {
  $("signin").hidden = true;
  $("overview").hidden = false;
  $("figures").replaceChildren(...Object.entries(view.figures).map(([name, value]) =>
    element("div", { class: `figure ${/dropped|refused/.test(name) && value > 0 ? "bad" : ""}`, "data-figure": name },
      element("div", { class: "value" }, String(value)), element("div", { class: "name" }, name))));
  if (view.channels.length === 0) {
    $("channels").replaceChildren(element("p", { class: "hint" }, "No channels yet: they appear when someone joins one."));
    return;
  }
  $("channels").replaceChildren(...view.channels.map(renderChannel));
}

function renderChannel(channel) {
  const elapsed = Date.now() - view.polledAt;
  let floor;
  if (channel.speaker) {
    const left = channel.talkTimeLeftMs == null ? "" : ` · ${Math.max(0, Math.ceil((channel.talkTimeLeftMs - elapsed) / 1000))} s left`;
    floor = element("span", { class: "floor taken", "data-testid": `floor-${channel.name}` }, `${channel.speaker.name} is talking${left}`);
  } else {
    floor = element("span", { class: "floor idle", "data-testid": `floor-${channel.name}` }, "floor idle");
  }
  const revokeKey = `revoke-${channel.id}`;
  const revokeButton = channel.speaker ? element("button", {
    class: "danger", "data-testid": `revoke-${channel.name}`, textContent: "Revoke floor",
  }) : null;
  if (revokeButton) {
    if (pending.has(revokeKey) && Date.now() - pending.get(revokeKey) <= CONFIRM_MS) {
      revokeButton.textContent = "Click again to revoke the floor";
      revokeButton.classList.add("confirm");
    }
    revokeButton.onclick = () => confirmThen(revokeButton, revokeKey, "revoke the floor", () => revoke(channel));
  }
  const queue = channel.queue.length
    ? element("div", { class: "queue", "data-testid": `queue-${channel.name}` },
      "Queue: " + channel.queue.map((q) => `${q.position}. ${q.name}`).join(", "))
    : null;
  const connected = channel.members.filter((m) => m.connected).length;
  const head = element("div", { class: "channel-head" },
    element("h2", {}, channel.name, " ",
      channel.recording ? element("span", { class: "tag rec" }, "recording") : null),
    floor,
    element("span", { class: "hint" }, `${channel.members.length} members · ${connected} connected`),
    revokeButton);
  const rows = channel.members.map((member) => {
    const key = `kick-${channel.id}-${member.id}`;
    const kickButton = element("button", { class: "danger", "data-testid": `kick-${member.id}`, textContent: "Kick" });
    if (pending.has(key) && Date.now() - pending.get(key) <= CONFIRM_MS) {
      kickButton.textContent = "Click again to kick";
      kickButton.classList.add("confirm");
    }
    kickButton.onclick = () => confirmThen(kickButton, key, "kick", () => kick(channel, member));
    const wake = member.lastWake ? `${member.lastWake.kind} ${member.lastWake.outcome} via ${member.lastWake.transport}, ${ago(member.lastWake.at)}` : "–";
    return element("tr", { "data-testid": `member-${member.id}`, "data-user": member.user },
      element("td", {}, member.name, member.receiveOnly ? " (listens)" : ""),
      element("td", { class: "hide-narrow" }, `${member.user} · ${member.device}`),
      element("td", { class: member.connected ? "yes" : "no" }, member.connections.length ? member.connections.join(", ") : "offline"),
      element("td", { class: member.audioReachable ? "yes" : "no", "data-testid": `reachable-${member.id}` },
        member.audioReachable ? "reachable" : "not reachable"),
      element("td", {}, member.wakeRoute),
      element("td", { class: "hide-narrow" }, wake),
      element("td", { class: "hide-narrow" }, String(member.droppedNotHolder)),
      element("td", {}, kickButton));
  });
  const table = element("table", {},
    element("thead", {}, element("tr", {},
      ...["member", "user · device", "connections", "audio", "wake route", "last wake", "dropped", ""].map((title, index) =>
        element("th", { class: [1, 5, 6].includes(index) ? "hide-narrow" : "" }, title)))),
    element("tbody", {}, ...rows));
  return element("div", { class: "channel", "data-testid": `channel-${channel.name}` }, head, queue, table);
}

function showSignIn() {
  clearTimeout(timer);
  setStatus("not signed in", "");
  $("overview").hidden = true;
  $("signin").hidden = false;
}

// ---------------------------------------------------------------------------------------------------------
// Start

$("token-form").addEventListener("submit", (event) => {
  event.preventDefault();
  api.token = $("token").value.trim();
  $("signin-error").textContent = "";
  poll();
});
$("signout").addEventListener("click", (event) => {
  event.preventDefault();
  api.token = null;
  showSignIn();
});
document.addEventListener("visibilitychange", () => { if (!document.hidden) poll(); });
// The talk time left counts down between polls.
setInterval(() => { if (view.ready && !$("overview").hidden) render(); }, 500);

window.pttConsole = view;
poll();
