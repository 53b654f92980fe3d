import PTTProtocol

/// Scan lists (Docs/PROTOCOL.md 5.45–5.47): hear several of this device's channels, one burst at a time.
extension PTTClient {
    /// Sets this device's scan list: `channels` (names or UUIDs of its memberships), highest priority first; empty
    /// stops scanning. Of the listed channels, only the highest-priority one with a burst in progress is heard (on
    /// its own ``ChannelHandle``); ``PTTEvent/scanSwitched(hearing:)`` says which. Talking is unchanged: a handle's
    /// floor request talks on its channel. The client sends the list again after every reconnect (a restarted server
    /// keeps none).
    @discardableResult
    public func scan(_ channels: [String], resume: ScanResume = .live) async throws -> [ChannelInfo] {
        let request = ScanRequest(channels: channels, resume: resume)
        let answer = try await self.request(.scan(request))
        guard case .scanSet(let set) = answer else { throw PTTClientError.unexpectedReply(answer.type) }
        scanList = channels.isEmpty ? nil : request
        return set.channels
    }
}
