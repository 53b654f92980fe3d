import PTTProtocol

/// Who connects: the user the operator created (`pttctl user add`), its secret, and this device's id.
public struct PTTCredentials: Sendable, Equatable {
    /// The user name.
    public var user: String
    /// The secret `pttctl user add` showed once. Keep it in the Keychain.
    public var secret: String
    /// A stable id this device chooses once and keeps (a UUID is a good choice), 1 to 128 characters. Memberships
    /// belong to the pair (user, device): they survive disconnects and server restarts, and a reconnecting device
    /// finds them again. The app and its Local Push extension use the same device id.
    public var device: String

    /// Credentials for `user` on `device`.
    public init(user: String, secret: String, device: String) {
        self.user = user
        self.secret = secret
        self.device = device
    }

    /// The `hello` these credentials say on a connection for `role`, naming the client software `client`.
    public func hello(role: ClientRole, client: String) -> Hello {
        Hello(user: user, secret: secret, device: device, role: role, client: client)
    }
}
