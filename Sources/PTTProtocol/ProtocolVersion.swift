/// The control protocol version this build speaks. `hello` carries it; a server answers a
/// different version with `error` code `unsupported-version` and closes.
public enum ProtocolVersion {
    public static let current = 1
}

/// The largest control frame body, in bytes. Longer frames are refused and the connection closed.
public enum ControlFrameLimit {
    public static let maxBodyBytes = 64 * 1024
}
