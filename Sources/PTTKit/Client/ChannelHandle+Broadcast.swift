import PTTProtocol

/// Broadcasts (Docs/PROTOCOL.md 5.42–5.44): talk on this channel to it and other channels at once.
extension ChannelHandle {
    /// Starts a broadcast from this channel to `channels` (names or UUIDs), or to every channel (`all`): this member
    /// takes this channel's floor at broadcast urgency (``PTTEvent/floorGranted(channel:talkTime:)`` comes first) and
    /// what it sends then reaches every member of each channel, once per device. ``releaseFloor()`` ends it. Needs the
    /// user's broadcast right: without it the server answers `not-permitted`.
    public func broadcast(to channels: [String], all: Bool = false) async throws -> BroadcastInfo {
        let answer = try await request(
            .broadcast(BroadcastRequest(channel: id, to: channels.isEmpty ? nil : channels, all: all ? true : nil)))
        guard case .broadcastStarted(let started) = answer else { throw PTTClientError.unexpectedReply(answer.type) }
        return started.broadcast
    }
}
