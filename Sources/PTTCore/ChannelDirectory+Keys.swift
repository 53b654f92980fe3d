/// Media keys and push tokens: planned like every change, from the memberships in the directory.
extension ChannelDirectory {
    /// Plans new media keys for every membership: done at every server start, because the relay's SRTP
    /// state (sequence numbers, replay windows) starts over, and must never start over under an old key.
    public func planRotateMediaKeys<R: RandomNumberGenerator>(random: inout R) -> [DirectoryChange] {
        memberships.values.sorted { $0.id < $1.id }.map { membership in
            var rotated = membership
            rotated.mediaKey = Self.newMediaKey(for: membership.mediaSuite, using: &random)
            return .putMembership(rotated)
        }
    }

    /// Plans a push token registration for an existing membership.
    public func planPushToken(member: MemberID, token: [UInt8]) throws(DirectoryError) -> Membership {
        guard var membership = memberships[member] else { throw .noSuchMember(member.rawValue) }
        try Self.validatePushToken(token)
        membership.pushToken = token
        return membership
    }

    /// Push tokens are opaque and variable in length: only the bounds are checked.
    public static func validatePushToken(_ token: [UInt8]) throws(DirectoryError) {
        if token.isEmpty { throw .invalidPushToken("empty") }
        if token.count > 1024 { throw .invalidPushToken("longer than 1024 bytes") }
    }
}
