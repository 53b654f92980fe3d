// The walkie-talkie page: what it shows and keeps (state, credentials, device id), and what the browser can do.

export const $ = (id) => document.getElementById(id);

/** Everything the page shows, and the counts a test reads (`window.pttPage.state`). */
export const state = {
  screen: "start",
  connection: "offline", // offline | connecting | online | reconnecting
  user: null,
  channel: null, // { name, id, media, members: Map(id → member) }
  memberships: [], // channel names this device belongs to (from welcome)
  floor: "idle", // idle | requested | granted | queued | denied | taken | revoked
  speaker: null, // display name of whoever holds the floor
  queuePosition: null,
  deniedCause: null,
  notice: null, // the last floor event worth telling (denied, revoked, pre-emption coming), until the next press
  talkTimeMs: null,
  talkTimeLeftMs: null,
  pressed: false,
  replay: null, // { speaker, durationMs } while a recorded message plays
  scan: { channels: [], hearing: null }, // other channels also heard (ticked), and the one heard now
  call: null, // a private call: { phase: calling | incoming | answering | connected, info (CallInfo), other, returnTo }
  lastError: null,
  pageNote: null, // something about this browser worth saying on every screen (a sign-in link that was not needed)
  stats: {
    framesCaptured: 0, framesEncoded: 0, packetsSent: 0, packetsReceived: 0, framesDecoded: 0,
    decodeErrors: 0, outOfOrder: 0, duplicates: 0, lastSeq: null, firstSeq: null, micLevel: 0, outLevel: 0,
    micPeak: 0, outPeak: 0, reconnects: 0, speakers: [],
  },
};

// ---------------------------------------------------------------------------------------------------------
// What this browser can do

export function missingFeatures() {
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

export const store = {
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
  /** Channel names to offer: the user's channels the server named when a link signed this browser in, and every
   * channel joined here since. */
  get knownChannels() {
    try { return JSON.parse(localStorage.getItem("ptt.channels") || "[]"); } catch { return []; }
  },
  set knownChannels(names) {
    if (names && names.length) localStorage.setItem("ptt.channels", JSON.stringify([...new Set(names)].slice(0, 64)));
    else localStorage.removeItem("ptt.channels");
  },
  get lastChannel() { return localStorage.getItem("ptt.channel"); },
  set lastChannel(name) {
    if (name) localStorage.setItem("ptt.channel", name); else localStorage.removeItem("ptt.channel");
  },
};

/** Redeems a sign-in link's token (`#link=TOKEN`) for a credential of this browser. */
export async function redeemLink(token) {
  const response = await fetch("/api/sign-in", {
    method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ link: token }),
  });
  const body = await response.json().catch(() => ({}));
  if (!response.ok) {
    const error = new Error(body.error || `sign-in failed (HTTP ${response.status})`);
    error.status = response.status; // 401 used or unknown, 410 expired
    throw error;
  }
  return { user: body.user, secret: body.secret, channels: Array.isArray(body.channels) ? body.channels : [] };
}
