import PTTCore

extension SignInLinks {
    /// The most channel names a sign-in answer offers.
    static let channelsOffered = 64

    /// The channels offered to a browser a link just signed in as `user` (a new device, with no membership of its
    /// own yet): the user's channels (a membership on any of its devices) first, then the server's other channels,
    /// each group by name; at most ``channelsOffered``. One scan of the directory per link redeemed, not per hello.
    func channels(offeredTo user: String) -> [String] {
        let directory = plane.directory
        let own = Set(directory.memberships.values.lazy.filter { $0.user == user }.map(\.channel))
        return directory.channels.values
            .map { (own: own.contains($0.id), name: $0.name) }
            .sorted { ($0.own ? 0 : 1, $0.name) < ($1.own ? 0 : 1, $1.name) }
            .prefix(Self.channelsOffered).map(\.name)
    }
}
