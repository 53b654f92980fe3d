/// A `HOST:PORT` to reach a server at (`[::1]:7700` for IPv6; the port defaults to 7700).
public struct ServerEndpoint: Sendable, Equatable, CustomStringConvertible {
    public var host: String
    public var port: Int

    public init(host: String, port: Int) {
        self.host = host
        self.port = port
    }

    /// Parses `HOST`, `HOST:PORT`, `[V6]` or `[V6]:PORT`.
    public init?(parsing text: String, defaultPort: Int = 7700) {
        var host = Substring(text)
        var port = defaultPort
        if host.hasPrefix("[") {
            guard let close = host.firstIndex(of: "]") else { return nil }
            let rest = host[host.index(after: close)...]
            host = host[host.index(after: host.startIndex)..<close]
            if !rest.isEmpty {
                guard rest.hasPrefix(":"), let p = Int(rest.dropFirst()) else { return nil }
                port = p
            }
        } else if let colon = host.lastIndex(of: ":"), host.firstIndex(of: ":") == colon {
            guard let p = Int(host[host.index(after: colon)...]) else { return nil }
            port = p
            host = host[..<colon]
        }
        guard !host.isEmpty, (1...65535).contains(port) else { return nil }
        self.host = String(host)
        self.port = port
    }

    public var description: String { host.contains(":") ? "[\(host)]:\(port)" : "\(host):\(port)" }
}
