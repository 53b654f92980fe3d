// The operator console of pttrelay: every channel, live, from the admin API (Docs/PROTOCOL.md section 9).
// Plain JavaScript. The admin token is asked for once and kept in this tab's sessionStorage; every call sends it
// as `Authorization: Bearer`. The console polls about once a second (not while the tab is hidden), backs off
// while the server is unreachable, and counts talk time down between polls. Each render updates the page in place
// (`morph`): elements, buttons above all, stay the same nodes, so a click that spans a render is not lost.
"use strict";

const POLL_MS = 1000;
const METRICS_EVERY = 2; // polls
const CONFIRM_MS = 5000; // a destructive button asks to be clicked again within this long

const $ = (id) => document.getElementById(id);

/** What the console shows, for tests and scripts: `window.pttConsole`. */
const view = {
  ready: false,
  polls: 0,
  renders: 0,
  lastError: null,
  channels: [], // ChannelDetail objects
  calls: [], // CallStatus objects: private calls ringing or connected
  broadcasts: [], // BroadcastStatus objects: broadcasts running
  wakes: null,
  figures: {},
  drops: { relay: {}, browser: {} }, // reason → count, for the notes under the figures
  alerts: [], // names of the channels whose emergency is shown and not yet acknowledged
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
    view.calls = await api.call("GET", "/api/calls");
    view.broadcasts = await api.call("GET", "/api/broadcasts");
    if (view.polls % METRICS_EVERY === 0) {
      const sums = metricSums(await api.call("GET", "/metrics", { text: true }));
      view.figures = figuresFrom(sums);
      view.drops = dropsFrom(sums);
    }
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

/** Every series of the Prometheus text of `/metrics` by name with labels, and each name's sum over its labels. */
function metricSums(text) {
  const sums = {};
  for (const line of text.split("\n")) {
    if (!line || line.startsWith("#")) continue;
    const match = /^([a-z_]+)(\{[^}]*\})?\s+([0-9.eE+-]+)$/.exec(line);
    if (!match) continue;
    const [, name, labels = "", value] = match;
    sums[name] = (sums[name] || 0) + Number(value);
    sums[name + labels] = Number(value);
  }
  return sums;
}

/** The figures the console shows. */
function figuresFrom(sums) {
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

/** The drop counters by reason (non-zero only): `{relay: {reason: n}, browser: {reason: n}}`. */
function dropsFrom(sums) {
  const byReason = (metric) => {
    const found = {};
    for (const [series, value] of Object.entries(sums)) {
      const match = new RegExp(`^${metric}\\{reason="([a-z-]+)"\\}$`).exec(series);
      if (match && value > 0) found[match[1]] = value;
    }
    return found;
  };
  return { relay: byReason("ptt_media_packets_dropped_total"), browser: byReason("ptt_web_media_dropped_total") };
}

// What each figure counts, in an operator's words (the tooltip of the figure; Docs/PROTOCOL.md 8.11, 9.5, 12.4).
const FIGURE_HELP = {
  "control connections": "Apps, ptt clients and browsers connected to the server now (ptt_control_connections).",
  "browser members": "Browsers connected through the walkie-talkie page now (ptt_web_sessions).",
  "members": "Memberships in all channels, connected or not (ptt_members).",
  "packets relayed": "Audio packets the relay sent to listeners since the server started, one per listener " +
    "(ptt_media_packets_forwarded_total).",
  "packets dropped": "Audio packets the relay received and did not pass on since the server started " +
    "(ptt_media_packets_dropped_total, all reasons). A few are normal: someone pressing while another talks. " +
    "The line under the figures says why they were dropped.",
  "dropped: not holder": "Audio from a member who did not hold the floor, for instance talking while someone else " +
    "talked (ptt_media_packets_dropped_total, reason not-floor-holder).",
  "dropped: authentication": "Audio that failed its SRTP check: an old key (a device that did not join again " +
    "after a server restart), a replayed or forged packet (ptt_media_packets_dropped_total, reason authentication).",
  "browser audio dropped": "Audio to or from browsers that the page bridge dropped (ptt_web_media_dropped_total): " +
    "the line under the figures says why.",
  "connections refused": "Connections turned away when they arrived: the server or one address at its limit, or " +
    "an address blocked after failed sign-ins (ptt_control_connections_refused_total, " +
    "ptt_web_connections_refused_total).",
};

// Why the relay drops a packet (ptt_media_packets_dropped_total, Docs/PROTOCOL.md 8.11).
const RELAY_DROP_WHY = {
  "not-floor-holder": "sent without the floor (a member talking while someone else talked)",
  "authentication": "failed the SRTP check (an old key after a server restart, or a replayed or forged packet)",
  "unknown-ssrc": "from a sender that is no member's (an old membership, or not ours)",
  "malformed": "not an audio packet at all",
  "payload-type": "not Opus",
  "opus": "an Opus payload that is not valid",
  "receive-only": "sent by a member who only listens",
  "protect-failed": "could not be encrypted for a listener (not expected: report it)",
  "socket-error": "the network reported an error, usually for a listener that has gone away",
};

// Why the browser bridge drops a packet (ptt_web_media_dropped_total, Docs/PROTOCOL.md 12.4).
const BROWSER_DROP_WHY = {
  "slow-browser": "for a browser that did not read fast enough (a slow network or a busy device)",
  "unknown-ssrc": "from a page, with another member's sender id",
  "malformed": "from a page, not an audio packet",
  "unauthenticated": "for a browser, failed the relay's SRTP check",
};

/** A sentence per non-zero drop counter: how many, the counter's reason, and what it means. */
function dropNotes() {
  const plural = (n) => `${n} packet${n === 1 ? "" : "s"}`;
  const notes = [];
  for (const [reason, count] of Object.entries(view.drops.relay)) {
    notes.push(`Relay dropped ${plural(count)} (${reason}): ${RELAY_DROP_WHY[reason] || "see ptt_media_packets_dropped_total"}.`);
  }
  for (const [reason, count] of Object.entries(view.drops.browser)) {
    notes.push(`Browser bridge dropped ${plural(count)} (${reason}): ${BROWSER_DROP_WHY[reason] || "see ptt_web_media_dropped_total"}.`);
  }
  return notes;
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

function endCall(call) {
  return api.call("DELETE", `/api/calls/${encodeURIComponent(call.id)}`);
}

/** Private calls: who calls whom, ringing or connected, each with an End button (clicked twice). */
function renderCalls() {
  if (view.calls.length === 0) return show($("calls"));
  const rows = view.calls.map((call) => {
    const phase = call.phase === "connected" ? (call.talking ? "connected · talking" : "connected") : call.phase;
    const key = `end-call-${call.id}`;
    const button = element("button", { class: "danger", "data-testid": `end-call-${call.caller}-${call.callee}`,
      textContent: "End" });
    if (pending.has(key) && Date.now() - pending.get(key) <= CONFIRM_MS) {
      button.textContent = "Click again to end the call";
      button.classList.add("confirm");
    }
    // The button on the page (kept across renders), not this render's copy.
    button.onclick = (event) => confirmThen(event.currentTarget, key, "end the call", () => endCall(call));
    return element("tr", { "data-testid": `call-${call.caller}-${call.callee}` },
      element("td", {}, `${call.callerName} (${call.caller})`), element("td", {}, call.callee),
      element("td", { "data-testid": `call-phase-${call.caller}-${call.callee}` }, phase),
      element("td", {}, ago(call.since)), element("td", {}, button));
  });
  show($("calls"), element("h2", {}, `Private calls (${view.calls.length})`),
    element("table", {}, element("thead", {}, element("tr", {}, ...["Caller", "Callee", "Phase", "Placed", ""]
      .map((name) => element("th", {}, name)))), element("tbody", {}, ...rows)));
}

/** Broadcasts running: who talks to which channels, each with an End button (clicked twice). */
function renderBroadcasts() {
  if (view.broadcasts.length === 0) return show($("broadcasts"));
  const rows = view.broadcasts.map((broadcast) => {
    const key = `end-broadcast-${broadcast.id}`;
    const button = element("button", { class: "danger", "data-testid": `end-broadcast-${broadcast.speaker}`,
      textContent: "End" });
    if (pending.has(key) && Date.now() - pending.get(key) <= CONFIRM_MS) {
      button.textContent = "Click again to end the broadcast";
      button.classList.add("confirm");
    }
    button.onclick = (event) => confirmThen(event.currentTarget, key, "end the broadcast",
      () => api.call("DELETE", `/api/broadcasts/${encodeURIComponent(broadcast.id)}`));
    return element("tr", { "data-testid": `broadcast-${broadcast.speaker}` },
      element("td", {}, `${broadcast.speakerName} (${broadcast.speaker})`),
      element("td", { "data-testid": `broadcast-channels-${broadcast.speaker}` }, broadcast.channels.join(", ")),
      element("td", {}, ago(broadcast.since)), element("td", {}, button));
  });
  show($("broadcasts"), element("h2", {}, `Broadcasts (${view.broadcasts.length})`),
    element("table", {}, element("thead", {}, element("tr", {}, ...["Speaker", "Channels", "Since", ""]
      .map((name) => element("th", {}, name)))), element("tbody", {}, ...rows)));
}

function clearEmergency(channel) {
  return api.call("DELETE", `/api/channels/${encodeURIComponent(channel.id)}/emergency`);
}

// ---------------------------------------------------------------------------------------------------------
// Emergency alerts: one per declaration (a channel and its `since`), shown until the operator acknowledges it in
// this tab. They sit in a fixed bar at the bottom, so an alert that comes never moves a button under the pointer.

const ACKNOWLEDGED_KEY = "pttConsoleAcknowledged";

function acknowledged() {
  try { return new Set(JSON.parse(sessionStorage.getItem(ACKNOWLEDGED_KEY) || "[]")); } catch { return new Set(); }
}

function acknowledge(key) {
  const keys = [...acknowledged(), key].slice(-200);
  sessionStorage.setItem(ACKNOWLEDGED_KEY, JSON.stringify(keys));
  render();
}

const emergencyKey = (channel) => `${channel.id}@${channel.emergency.since}`;
const levelWords = (emergency) => (emergency.level === "imminent-peril" ? "IMMINENT PERIL" : "EMERGENCY");

function renderAlerts() {
  const done = acknowledged();
  const open = view.channels.filter((channel) => channel.emergency && !done.has(emergencyKey(channel)));
  view.alerts = open.map((channel) => channel.name);
  show($("alerts"), ...open.map((channel) => {
    const emergency = channel.emergency;
    const who = emergency.name ? `${emergency.name} (${emergency.user})` : emergency.user;
    const key = emergencyKey(channel);
    return element("div", { class: "alert", "data-testid": `alert-${channel.name}` },
      element("span", {}, element("strong", {}, `${levelWords(emergency)} on ${channel.name}`),
        ` declared by ${who}, ${ago(emergency.since)}`),
      element("button", {
        "data-testid": `acknowledge-${channel.name}`, textContent: "Acknowledge", onclick: () => acknowledge(key),
      }));
  }));
}

function revoke(channel) {
  return api.call("POST", `/api/channels/${encodeURIComponent(channel.id)}/revoke`);
}

function kick(channel, member) {
  return api.call("DELETE", `/api/channels/${encodeURIComponent(channel.id)}/members/${encodeURIComponent(member.id)}`);
}

// ---------------------------------------------------------------------------------------------------------
// Rendering: each render builds the wanted tree and `morph` makes the page match it, keeping the nodes it has

/** An element's identity across renders: its `data-testid`, if any. */
function keyOf(node) {
  return node.nodeType === Node.ELEMENT_NODE ? node.getAttribute("data-testid") : null;
}

/** Makes `node` look like `wanted` (the same kind of node), keeping `node` and its matching children. */
function morph(node, wanted) {
  if (node.nodeName !== wanted.nodeName) { node.replaceWith(wanted); return; }
  if (node.nodeType !== Node.ELEMENT_NODE) {
    if (node.nodeValue !== wanted.nodeValue) node.nodeValue = wanted.nodeValue;
    return;
  }
  for (const { name } of Array.from(node.attributes)) if (!wanted.hasAttribute(name)) node.removeAttribute(name);
  for (const { name, value } of Array.from(wanted.attributes)) {
    if (node.getAttribute(name) !== value) node.setAttribute(name, value);
  }
  if (node.onclick !== wanted.onclick) node.onclick = wanted.onclick;
  morphChildren(node, wanted);
}

/** Makes `parent`'s children those of `wanted`: children with the same key (or, unkeyed, the same tag at the same
 *  place) are kept and updated; the others are added or removed. */
function morphChildren(parent, wanted) {
  const next = Array.from(wanted.childNodes);
  const wantedKeys = new Set(next.map(keyOf).filter(Boolean));
  for (const child of Array.from(parent.childNodes)) if (keyOf(child) && !wantedKeys.has(keyOf(child))) child.remove();
  const keyed = new Map();
  for (const child of parent.childNodes) if (keyOf(child)) keyed.set(keyOf(child), child);
  next.forEach((child, index) => {
    const current = parent.childNodes[index] || null;
    const key = keyOf(child);
    let match = key ? keyed.get(key) : null;
    if (!key && current && !keyOf(current) && current.nodeName === child.nodeName) match = current;
    if (match) {
      if (match !== current) parent.insertBefore(match, current);
      morph(match, child);
    } else {
      parent.insertBefore(child, current);
    }
  });
  while (parent.childNodes.length > next.length) parent.lastChild.remove();
}

/** Updates `parent` in place to hold `children`. */
function show(parent, ...children) {
  morphChildren(parent, element("div", {}, ...children));
}

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
  view.renders++;
  $("signin").hidden = true;
  $("overview").hidden = false;
  show($("figures"), ...Object.entries(view.figures).map(([name, value]) =>
    element("div", {
      class: `figure ${/dropped|refused/.test(name) && value > 0 ? "bad" : ""}`, "data-figure": name,
      "data-testid": `figure-${name}`, title: FIGURE_HELP[name] || "",
    }, element("div", { class: "value" }, String(value)), element("div", { class: "name" }, name))));
  show($("figure-notes"), ...dropNotes().map((note) => element("li", {}, note)));
  renderAlerts();
  renderCalls();
  renderBroadcasts();
  if (view.channels.length === 0) {
    show($("channels"), element("p", { class: "hint" }, "No channels yet: they appear when someone joins one."));
    return;
  }
  show($("channels"), ...view.channels.map(renderChannel));
}

const DROPPED_COLUMN_HELP = "Audio packets this member sent while another member held the floor (droppedNotHolder)";

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
    // The button on the page (kept across renders), not this render's copy.
    revokeButton.onclick = (event) =>
      confirmThen(event.currentTarget, revokeKey, "revoke the floor", () => revoke(channel));
  }
  const queue = channel.queue.length
    ? element("div", { class: "queue", "data-testid": `queue-${channel.name}` },
      "Queue: " + channel.queue.map((q) => `${q.position}. ${q.name}`).join(", "))
    : null;
  const connected = channel.members.filter((m) => m.connected).length;
  let clearButton = null;
  if (channel.emergency) {
    const clearKey = `clear-${channel.id}`;
    clearButton = element("button", {
      class: "danger", "data-testid": `clear-emergency-${channel.name}`, textContent: "Clear emergency",
    });
    if (pending.has(clearKey) && Date.now() - pending.get(clearKey) <= CONFIRM_MS) {
      clearButton.textContent = "Click again to clear the emergency";
      clearButton.classList.add("confirm");
    }
    clearButton.onclick = (event) =>
      confirmThen(event.currentTarget, clearKey, "clear the emergency", () => clearEmergency(channel));
  }
  const emergencyTag = channel.emergency
    ? element("span", {
      class: "tag emergency", "data-testid": `emergency-${channel.name}`,
      title: `declared by ${channel.emergency.name || channel.emergency.user} at ${channel.emergency.since}`,
    }, levelWords(channel.emergency))
    : null;
  const head = element("div", { class: "channel-head" },
    element("h2", {}, channel.name, " ", emergencyTag, emergencyTag ? " " : null,
      channel.recording ? element("span", { class: "tag rec" }, "recording") : null),
    floor,
    element("span", { class: "hint" }, `${channel.members.length} members · ${connected} connected`),
    clearButton, revokeButton);
  const rows = channel.members.map((member) => {
    const key = `kick-${channel.id}-${member.id}`;
    const kickButton = element("button", { class: "danger", "data-testid": `kick-${member.id}`, textContent: "Kick" });
    if (pending.has(key) && Date.now() - pending.get(key) <= CONFIRM_MS) {
      kickButton.textContent = "Click again to kick";
      kickButton.classList.add("confirm");
    }
    kickButton.onclick = (event) => confirmThen(event.currentTarget, key, "kick", () => kick(channel, member));
    const wake = member.lastWake ? `${member.lastWake.kind} ${member.lastWake.outcome} via ${member.lastWake.transport}, ${ago(member.lastWake.at)}` : "–";
    return element("tr", { "data-testid": `member-${member.id}`, "data-user": member.user },
      element("td", {}, member.name, member.receiveOnly ? " (listens)" : "",
        member.scanRank ? element("span", { class: "tag", "data-testid": `scan-${member.id}`,
          title: "this device scans several channels; this is its place in the list (1 first)" }, `scan #${member.scanRank}`) : null),
      element("td", { class: "hide-narrow" }, `${member.user} · ${member.device}`),
      element("td", { class: member.connected ? "yes" : "no" }, member.connections.length ? member.connections.join(", ") : "offline"),
      element("td", { class: member.audioReachable ? "yes" : "no", "data-testid": `reachable-${member.id}` },
        member.audioReachable ? "reachable" : "not reachable"),
      element("td", {}, member.wakeRoute),
      element("td", { class: "hide-narrow" }, wake),
      element("td", { class: "hide-narrow", title: DROPPED_COLUMN_HELP }, String(member.droppedNotHolder)),
      element("td", {}, kickButton));
  });
  const table = element("table", {},
    element("thead", {}, element("tr", {},
      ...["member", "user · device", "connections", "audio", "wake route", "last wake", "dropped", ""].map((title, index) =>
        element("th", {
          class: [1, 5, 6].includes(index) ? "hide-narrow" : "", title: index === 6 ? DROPPED_COLUMN_HELP : "",
        }, title)))),
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
