// The browser walkie-talkie of pttrelay. Plain JavaScript, no libraries.
//
// It speaks the control protocol of Docs/PROTOCOL.md over a WebSocket (`/ws`): each text message is one
// control message, the same JSON a control frame carries. Audio travels as binary messages, each one RTP
// packet (RFC 3550, no encryption: the WebSocket is inside TLS) with the SSRC and payload type of the
// membership's `joined`; the server bridges them to the relay, which treats this page as any member.
// Opus is encoded and decoded here with WebCodecs; AudioWorklets capture the microphone and play.

import { $, state, store, redeemLink, missingFeatures } from "./app-state.js";
import { control } from "./app-control.js";
import { channels } from "./app-channels.js";
import { talk } from "./app-talk.js";
import { calls } from "./app-calls.js";
import { scan } from "./app-scan.js";
import { audio } from "./app-audio.js";
import { render, show } from "./app-view.js";

// ---------------------------------------------------------------------------------------------------------
// Wiring

function wire() {
  $("signin-form").addEventListener("submit", (event) => {
    event.preventDefault();
    signIn($("user").value.trim(), $("secret").value);
  });
  $("join-form").addEventListener("submit", (event) => {
    event.preventDefault();
    state.pageNote = null;
    channels.join($("channel-name").value);
  });
  $("leave-button").addEventListener("click", () => { state.pageNote = null; channels.leave(); });
  $("replay-button").addEventListener("click", () => talk.replayLast());
  $("emergency-button").addEventListener("click", () => channels.declareEmergency());
  $("emergency-clear").addEventListener("click", () => channels.clearEmergency());
  $("call-answer").addEventListener("click", () => calls.answer());
  $("call-decline").addEventListener("click", () => calls.decline());
  $("call-hangup").addEventListener("click", () => calls.hangUp());
  $("signout").addEventListener("click", (event) => {
    event.preventDefault();
    store.credentials = null;
    store.lastChannel = null;
    store.knownChannels = null;
    state.channel = null;
    state.pageNote = null;
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
    const signedIn = store.credentials;
    try {
      const answer = await redeemLink(link);
      store.credentials = { user: answer.user, secret: answer.secret };
      store.knownChannels = answer.channels;
    } catch (error) {
      if (!signedIn) {
        $("signin-error").textContent = error.message;
        return show("signin");
      }
      // This browser holds a credential of its own already (the link signed it in before, or another did): it is
      // used, and the person is told why the link was not needed.
      const why = error.status === 410 ? "it has expired" : error.status === 401 ? "it was used already" : "the server did not take it";
      state.pageNote = `This browser is already signed in as ${signedIn.user}: the sign-in link was not needed (${why}).`;
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
  /** Ticks (`on`) or unticks a channel to also hear while this one is open. */
  scan: (name, on) => scan.toggle(name, on),
  replayLast: () => talk.replayLast(),
  leave: () => channels.leave(),
  signIn,
  dropConnection: () => control.drop(),
  /** Sends one protocol request on the page's connection; returns its id. */
  send: (message) => control.send(message),
};

start();
