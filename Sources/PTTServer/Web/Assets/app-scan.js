// Scanning: while one channel is open, also hear others of this user's channels, one burst at a time, the open
// channel first (`scan`, Docs/PROTOCOL.md 5.45). A channel ticked is joined in the background (it stays open as
// it was) and the list is sent; `scan-switched` says which channel is heard now.

import { state } from "./app-state.js";
import { control } from "./app-control.js";
import { render } from "./app-view.js";

export const scan = {
  joins: new Map(), // join request id → channel name, for channels joined to be heard, not opened

  /** Ticks (`on`) or unticks a channel to also hear. */
  toggle(name, on) {
    if (!state.channel || name === state.channel.name) return;
    if (on) {
      this.joins.set(control.send({ type: "join", channel: name }), name);
      return;
    }
    state.scan.channels = state.scan.channels.filter((other) => other !== name);
    this.send();
  },

  /** A `joined` for a channel joined to be heard: true when it was one (the open channel stays open). */
  joined(message) {
    const name = this.joins.get(message.re);
    if (name === undefined) return false;
    this.joins.delete(message.re);
    if (!state.memberships.includes(message.channel.name)) state.memberships.push(message.channel.name);
    if (!state.scan.channels.includes(message.channel.name)) state.scan.channels.push(message.channel.name);
    this.send();
    return true;
  },

  /** Sends the list: the open channel first, then the ticked ones; none ticked stops scanning. */
  send() {
    if (!state.channel) return;
    const list = state.scan.channels.length ? [state.channel.name, ...state.scan.channels] : [];
    control.send({ type: "scan", channels: list });
    render();
  },

  switched(message) {
    state.scan.hearing = message.hearing ? message.hearing.name : null;
    render();
  },

  /** The open channel changed or the connection started again: the server keeps no list for this page now. */
  reset() {
    state.scan = { channels: [], hearing: null };
    this.joins.clear();
  },
};
