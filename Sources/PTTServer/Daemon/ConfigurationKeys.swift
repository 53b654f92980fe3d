import APNs
import Foundation

/// The keys a config file may hold, as a tree ("floor" → "maxTalkTimeMs"), and what to say about one it may not.
///
/// The tree is what ``ServerConfiguration`` itself writes when every optional setting is given, so a key added to
/// the configuration's coding keys is known here with no second list to keep. A key outside it (a misspelt
/// `"maxTalkTimeMS"`) would otherwise be ignored without a word: ``unknownKeys(in:)`` finds each one, with its
/// path and the nearest known key.
struct ConfigurationKeys: Sendable, Equatable {
    /// The known keys at this level; an object-valued key has its own children, a value has none.
    var children: [String: ConfigurationKeys]

    /// Every key of the config file.
    static let known = ConfigurationKeys(encoding: .everySetting)

    /// A key of a config file that `pttd` does not know, and the known key it probably meant.
    struct Unknown: Sendable, Equatable, CustomStringConvertible {
        /// Its path from the top of the file, e.g. `floor.maxTalkTimeMS`.
        var path: String
        /// The nearest known key's path, when one is near enough, e.g. `floor.maxTalkTimeMs`.
        var suggestion: String?

        var description: String {
            "unknown key '\(path)'" + (suggestion.map { " (did you mean \($0)?)" } ?? "")
        }
    }

    /// The keys of `object` (a config file's top-level JSON object) that are not settings, in path order.
    func unknownKeys(in object: [String: Any]) -> [Unknown] {
        var found: [Unknown] = []
        collect(object, prefix: [], into: &found)
        return found.sorted { $0.path < $1.path }
    }

    private func collect(_ object: [String: Any], prefix: [String], into found: inout [Unknown]) {
        for (key, value) in object {
            let path = prefix + [key]
            guard let known = children[key] else {
                found.append(Unknown(path: path.joined(separator: "."), suggestion: Self.known.nearest(to: path)))
                continue
            }
            // A known object's own keys are checked too; a value of the wrong type is the decoder's to refuse.
            if !known.children.isEmpty, let nested = value as? [String: Any] {
                known.collect(nested, prefix: path, into: &found)
            }
        }
    }

    /// Every key's path, parents included: `floor`, `floor.maxTalkTimeMs`, ...
    var paths: [[String]] {
        children.flatMap { key, child in [[key]] + child.paths.map { [key] + $0 } }
    }

    /// The known path whose last key is closest to `path`'s (ignoring case), preferring the same parent, when it is
    /// near enough to be a slip: at most a third of the key's letters (and at least one) differ.
    func nearest(to path: [String]) -> String? {
        guard let key = path.last?.lowercased() else { return nil }
        let parent = Array(path.dropLast())
        let scored = paths.map { candidate in
            (
                candidate: candidate, distance: Self.editDistance(key, candidate.last!.lowercased()),
                elsewhere: Array(candidate.dropLast()) == parent ? 0 : 1
            )
        }
        let limit = max(1, key.count / 3)
        let best = scored.filter { $0.distance <= limit }.min {
            ($0.distance, $0.elsewhere, $0.candidate.count, $0.candidate.joined(separator: "."))
                < ($1.distance, $1.elsewhere, $1.candidate.count, $1.candidate.joined(separator: "."))
        }
        return best?.candidate.joined(separator: ".")
    }

    /// Levenshtein distance: the fewest insertions, deletions and substitutions that make `a` into `b`.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let a = Array(a)
        let b = Array(b)
        guard !a.isEmpty else { return b.count }
        guard !b.isEmpty else { return a.count }
        var previous = Array(0...b.count)
        for i in 1...a.count {
            var current = [i] + Array(repeating: 0, count: b.count)
            for j in 1...b.count {
                current[j] = min(
                    previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1))
            }
            previous = current
        }
        return previous[b.count]
    }
}

extension ConfigurationKeys {
    /// The tree of the JSON objects in `configuration`'s encoding.
    init(encoding configuration: ServerConfiguration) {
        let data = (try? JSONEncoder().encode(configuration)) ?? Data("{}".utf8)
        let object = (try? JSONSerialization.jsonObject(with: data)) as? [String: Any] ?? [:]
        self.init(object)
    }

    init(_ object: [String: Any]) {
        children = object.mapValues { value in
            (value as? [String: Any]).map(ConfigurationKeys.init) ?? ConfigurationKeys(children: [:])
        }
    }
}

extension ServerConfiguration {
    /// A configuration with every optional setting given, so that its encoding holds every key a file may have.
    static var everySetting: ServerConfiguration {
        var configuration = ServerConfiguration()
        configuration.tlsCertificate = "/etc/pttd/tls/fullchain.pem"
        configuration.tlsKey = "/etc/pttd/tls/key.pem"
        configuration.logLevel = .info
        configuration.apns = APNsSettings(
            keyFile: "/etc/pttd/AuthKey.p8", keyId: "KEY1234567", teamId: "TEAM123456", bundleId: "com.example",
            endpoint: "https://127.0.0.1:8443", caFile: "/etc/pttd/apns-ca.pem",
            timeoutMs: 5000)
        configuration.cluster = ClusterSettings(
            database: "postgres://pttd@db/pttd", node: "node", address: "node.example")
        return configuration
    }
}
