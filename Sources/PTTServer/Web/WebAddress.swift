import NIOCore
import NIOPosix

/// The address people open in a browser: the web listener's host, or, when it listens on every address, this
/// machine's first LAN address (what a phone on the same Wi-Fi reaches), else loopback.
enum WebAddress {
    static func url(host: String, port: Int, tls: Bool) -> String {
        let scheme = tls ? "https" : "http"
        var shown = host
        if host == "0.0.0.0" || host == "::" || host.isEmpty { shown = lanAddress() ?? "127.0.0.1" }
        if shown.contains(":") { shown = "[\(shown)]" }
        return "\(scheme)://\(shown):\(port)"
    }

    /// The first IPv4 address of an interface that is up and not loopback.
    static func lanAddress() -> String? {
        guard let devices = try? System.enumerateDevices() else { return nil }
        for device in devices {
            guard let address = device.address, case .v4 = address, let ip = address.ipAddress,
                !ip.hasPrefix("127.")
            else { continue }
            return ip
        }
        return nil
    }
}
