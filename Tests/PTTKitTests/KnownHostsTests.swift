import Foundation
import PTTKit
import Testing

/// Trust on first use: the first fingerprint seen for `host:port` is written to the file; later ones must match it.
@Suite("Known hosts: trust on first use")
struct KnownHostsTests {
    static let fingerprintA = String(repeating: "AA:", count: 31) + "AA"
    static let fingerprintB = String(repeating: "BB:", count: 31) + "BB"

    /// A path in a directory of its own that does not exist yet.
    static func freshPath(_ file: String = "known_hosts") -> (directory: String, path: String) {
        let directory = NSTemporaryDirectory() + "ptt-known-hosts-" + UUID().uuidString.prefix(12)
        return (directory, directory + "/ptt/" + file)
    }

    static func contents(_ path: String) throws -> String { try String(contentsOfFile: path, encoding: .utf8) }

    static func permissions(_ path: String) throws -> Int {
        let attributes = try FileManager.default.attributesOfItem(atPath: path)
        return try #require(attributes[.posixPermissions] as? Int) & 0o777
    }

    @Test("the first fingerprint of an endpoint is pinned and written as one `host:port fingerprint` line")
    func pinsFirst() throws {
        let (directory, path) = Self.freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hosts = KnownHosts(path: path)
        #expect(try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA) == .pinnedNow)
        #expect(try Self.contents(path) == "radio.local:7700 \(Self.fingerprintA)\n")
    }

    @Test("the same fingerprint again is trusted and writes nothing")
    func trustsSame() throws {
        let (directory, path) = Self.freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hosts = KnownHosts(path: path)
        _ = try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA)
        let before = try Self.contents(path)
        #expect(try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA) == .trusted)
        // A second KnownHosts on the same file (the next run of the client) trusts it too.
        #expect(try KnownHosts(path: path).verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA) == .trusted)
        #expect(try Self.contents(path) == before)
    }

    @Test("another fingerprint for a pinned endpoint is a change, names the pinned one, and is not written")
    func refusesChange() throws {
        let (directory, path) = Self.freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hosts = KnownHosts(path: path)
        _ = try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA)
        #expect(
            try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintB)
                == .changed(expected: Self.fingerprintA)
        )
        // Still a change the second time: the new fingerprint was not pinned over the old one.
        #expect(
            try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintB)
                == .changed(expected: Self.fingerprintA)
        )
        #expect(try Self.contents(path) == "radio.local:7700 \(Self.fingerprintA)\n")
    }

    @Test("endpoints are pinned apart: another port of the same host is another endpoint")
    func endpointsApart() throws {
        let (directory, path) = Self.freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let hosts = KnownHosts(path: path)
        #expect(try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA) == .pinnedNow)
        #expect(try hosts.verdict(for: "radio.local:7701", fingerprint: Self.fingerprintB) == .pinnedNow)
        #expect(try hosts.verdict(for: "[::1]:7700", fingerprint: Self.fingerprintB) == .pinnedNow)
        #expect(try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA) == .trusted)
        #expect(try hosts.verdict(for: "radio.local:7701", fingerprint: Self.fingerprintB) == .trusted)
        #expect(
            try hosts.verdict(for: "radio.local:7701", fingerprint: Self.fingerprintA)
                == .changed(expected: Self.fingerprintB)
        )
        #expect(try Self.contents(path).split(separator: "\n").count == 3)
    }

    @Test("the file is created readable by its owner only, in a directory only its owner can enter")
    func permissions() throws {
        let (directory, path) = Self.freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        _ = try KnownHosts(path: path).verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA)
        #expect(try Self.permissions(path) == 0o600)
        #expect(try Self.permissions((path as NSString).deletingLastPathComponent) == 0o700)
    }

    @Test("a file written by hand: comments, lines without a fingerprint and runs of spaces")
    func handWritten() throws {
        let (directory, path) = Self.freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        try """
        # radio.local:7700 \(Self.fingerprintB)
        lonely.local:7700
        radio.local:7700    \(Self.fingerprintA)   a note

        """.write(toFile: path, atomically: true, encoding: .utf8)
        let hosts = KnownHosts(path: path)
        // The commented-out line pins nothing; the spaced one does.
        #expect(try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA) == .trusted)
        #expect(
            try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintB)
                == .changed(expected: Self.fingerprintA)
        )
        // A line without a fingerprint pins nothing: the endpoint is new, and the new line is appended.
        #expect(try hosts.verdict(for: "lonely.local:7700", fingerprint: Self.fingerprintB) == .pinnedNow)
        #expect(try Self.contents(path).hasSuffix("\nlonely.local:7700 \(Self.fingerprintB)\n"))
    }

    @Test("a known_hosts path that cannot be written is an error, not a silent pin")
    func unwritable() throws {
        let (directory, path) = Self.freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        // The file's directory is a regular file: nothing can be created under it.
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        try "not a directory".write(toFile: directory + "/ptt", atomically: true, encoding: .utf8)
        #expect(throws: (any Error).self) {
            try KnownHosts(path: path).verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA)
        }

        // The path itself is a directory.
        let (other, asDirectory) = Self.freshPath()
        defer { try? FileManager.default.removeItem(atPath: other) }
        try FileManager.default.createDirectory(atPath: asDirectory, withIntermediateDirectories: true)
        #expect(throws: (any Error).self) {
            try KnownHosts(path: asDirectory).verdict(for: "radio.local:7700", fingerprint: Self.fingerprintA)
        }
    }

    @Test("a known_hosts that is not UTF-8 text is an error, not an empty file that pins anew")
    func corrupt() throws {
        let (directory, path) = Self.freshPath()
        defer { try? FileManager.default.removeItem(atPath: directory) }
        try FileManager.default.createDirectory(
            atPath: (path as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
        var bytes = Array("radio.local:7700 \(Self.fingerprintA)\n".utf8)
        bytes += [0xFF, 0xFE, 0x00, 0xC3, 0x28, 0x0A]
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let hosts = KnownHosts(path: path)
        // A file it cannot decode must not count as empty: the endpoint would be pinned again with whatever
        // certificate the server shows.
        #expect(throws: KnownHostsError.self) {
            try hosts.verdict(for: "radio.local:7700", fingerprint: Self.fingerprintB)
        }
    }

    @Test("the default path is $PTT_HOME/known_hosts, else ~/.ptt/known_hosts")
    func defaultPath() {
        #expect(
            KnownHosts.defaultPath(environment: ["PTT_HOME": "/srv/ptt", "HOME": "/home/ann"]) == "/srv/ptt/known_hosts"
        )
        #expect(KnownHosts.defaultPath(environment: ["HOME": "/home/ann"]) == "/home/ann/.ptt/known_hosts")
    }
}
