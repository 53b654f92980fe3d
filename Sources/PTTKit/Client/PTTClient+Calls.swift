import PTTProtocol

/// Private calls (Docs/PROTOCOL.md 5.36–5.41): ring one user, answer, hang up. A connected call is a channel of
/// its own with two members; its ``ChannelHandle`` takes the floor and carries audio like any other, and nobody else
/// hears it.
extension PTTClient {
    /// Rings `user` from this device's membership of `channel` (its newest one if nil: a call is placed from a
    /// channel, whose display name the callee sees). Returns once the callee's devices are being told; then comes
    /// ``PTTEvent/callConnected(_:channel:)`` or ``PTTEvent/callEnded(_:reason:by:)``.
    public func call(_ user: String, from channel: String? = nil) async throws -> CallInfo {
        let answer = try await request(.call(CallRequest(user: user, from: channel)))
        switch answer {
        case .callRinging(let ringing): return ringing.call
        case .callEnded(let ended): throw PTTClientError.refused(code: .unavailable, message: "\(ended.reason)")
        default: throw PTTClientError.unexpectedReply(answer.type)
        }
    }

    /// Answers a call that rings this device: returns the call's channel, its audio open.
    public func accept(_ call: CallInfo) async throws -> ChannelHandle {
        let answer = try await request(.callAccept(CallCommand(call: call.id)))
        if case .callEnded(let ended) = answer {
            throw PTTClientError.refused(code: .badRequest, message: "the call ended: \(ended.reason)")
        }
        guard case .callConnected(let connected) = answer else { throw PTTClientError.unexpectedReply(answer.type) }
        let handle = try await callHandle(for: connected)
        eventSink.yield(.callConnected(connected.call, channel: connected.channel))
        return handle
    }

    /// Declines a call that rings this device (every device of this user stops ringing).
    public func decline(_ call: CallInfo) async throws {
        _ = try await request(.callDecline(CallCommand(call: call.id)))
        await callEnded(call)
    }

    /// Hangs up a call, ringing or connected; its channel's handle ends.
    public func hangUp(_ call: CallInfo) async throws {
        _ = try await request(.callHangup(CallCommand(call: call.id)))
        await callEnded(call)
    }

    /// The handle of a connected call's channel: the open one, or a new one with its audio open.
    func callHandle(for connected: CallConnected) async throws -> ChannelHandle {
        if let open = channels[connected.channel.id] { return open }
        let joined = Joined(
            channel: connected.channel, member: connected.member, media: connected.media, floor: connected.floor,
            members: [], memberCount: 2)
        return try await handle(for: joined)
    }

    /// A call ended: its channel's handle (if it was connected) ends with it, after `linger` when the other side
    /// ended it: what it said last may still be on its way (the server forwards it for the floor's release grace).
    func callEnded(_ call: CallInfo, linger: Duration = .zero) async {
        guard let handle = channels.removeValue(forKey: call.id) else { return }
        if linger <= .zero { return await handle.ended() }
        Task {
            try? await Task.sleep(for: linger)
            await handle.ended()
        }
    }
}
