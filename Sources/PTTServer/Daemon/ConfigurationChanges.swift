import Foundation

/// What differs between the running configuration and a new one, by setting (`floor.maxTalkTimeMs`), sorted in
/// what a reload applies at once and what needs a restart (listening sockets, TLS on or off, media protection,
/// the connection budgets the descriptor limit was raised for).
struct ConfigurationChanges: Equatable {
    /// Settings a reload applies to the running server.
    var live: [String] = []
    /// Settings that only a restart applies; the server goes on with the running values.
    var needsRestart: [String] = []

    var isEmpty: Bool { live.isEmpty && needsRestart.isEmpty }

    /// The settings only a restart applies: top-level keys, or `section.key`.
    static let restartOnly: Set<String> = [
        "controlHost", "controlPort", "mediaPort", "adminHost", "adminPort", "tls", "web", "webHost", "webPort",
        "mediaSecurity", "maxConnections", "webMaxConnections", "limits.maxPendingHellos",
        "limits.adminMaxConnections", "cluster",
    ]

    /// Compares the two as their JSON (the config file's keys), one level into sections (`floor`, `wake`, …).
    init(from old: ServerConfiguration, to new: ServerConfiguration) {
        let before = Self.settings(old)
        let after = Self.settings(new)
        for key in Set(before.keys).union(after.keys).sorted() where !Self.same(before[key], after[key]) {
            let section = key.split(separator: ".").first.map(String.init) ?? key
            if Self.restartOnly.contains(key) || Self.restartOnly.contains(section) {
                needsRestart.append(key)
            } else {
                live.append(key)
            }
        }
    }

    /// Every setting by its dotted name; a section present in one configuration only is one setting.
    private static func settings(_ configuration: ServerConfiguration) -> [String: Any] {
        guard let data = try? JSONEncoder().encode(configuration),
            let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any]
        else { return [:] }
        var flat: [String: Any] = [:]
        for (key, value) in object {
            if let section = value as? [String: Any], key != "apns" {
                for (name, inner) in section { flat["\(key).\(name)"] = inner }
            } else {
                flat[key] = value
            }
        }
        return flat
    }

    private static func same(_ a: Any?, _ b: Any?) -> Bool {
        switch (a, b) {
        case (nil, nil): true
        case (let a?, let b?): canonical(a) == canonical(b)
        default: false
        }
    }

    /// The value as JSON with sorted keys: equal settings give equal bytes.
    private static func canonical(_ value: Any) -> Data? {
        try? JSONSerialization.data(withJSONObject: [value], options: [.sortedKeys])
    }
}

extension ServerConfiguration {
    /// This configuration with the settings only a restart applies taken from `running`: what the server runs
    /// with after a reload.
    func keepingRestartSettings(of running: ServerConfiguration) -> ServerConfiguration {
        var kept = self
        kept.controlHost = running.controlHost
        kept.controlPort = running.controlPort
        kept.mediaPort = running.mediaPort
        kept.adminHost = running.adminHost
        kept.adminPort = running.adminPort
        kept.tls = running.tls
        kept.web = running.web
        kept.webHost = running.webHost
        kept.webPort = running.webPort
        kept.mediaSecurity = running.mediaSecurity
        kept.maxConnections = running.maxConnections
        kept.webMaxConnections = running.webMaxConnections
        kept.cluster = running.cluster
        kept.limits.maxPendingHellos = running.limits.maxPendingHellos
        kept.limits.adminMaxConnections = running.limits.adminMaxConnections
        return kept
    }
}
