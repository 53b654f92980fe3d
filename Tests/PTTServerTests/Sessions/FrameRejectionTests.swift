import Foundation
import PTTKit
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

@Suite("Bad frames get an error and close only their own connection")
struct FrameRejectionTests {
    func expectRejected(_ bytes: [UInt8], code: ErrorCode, reason: String) async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("alice")
            let bystander = try await server.connect("alice", secret: secret, device: "bystander")
            _ = try await bystander.join("deck")

            let raw = try await RawConnection.connect(to: server.endpoint)
            try await raw.write(bytes)
            let answers = try await raw.collectUntilClosed()
            guard case .error(let error)? = answers.last else {
                throw TestFailure("expected an error frame, got \(answers.map(\.type))")
            }
            #expect(error.code == code)

            // Nothing else noticed: the other session still works.
            let again = try await bystander.join("deck")
            #expect(again.channel.name == "deck")
            let metrics = try await server.admin.getText("/metrics")
            #expect(metrics.contains("ptt_control_frames_rejected_total{reason=\"\(reason)\"} 1"))
        }
    }

    @Test("a length prefix over 64 KiB is refused without reading the body")
    func oversized() async throws {
        try await expectRejected([0x00, 0x01, 0x00, 0x01], code: .frameTooLarge, reason: "frame-too-large")
    }

    @Test("a body that is not JSON is refused")
    func notJSON() async throws {
        let body = Array("{this is not json".utf8)
        try await expectRejected(
            withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + body, code: .malformedFrame,
            reason: "malformed-frame")
    }

    @Test("a JSON object of an unknown type is refused")
    func unknownType() async throws {
        let body = Array(#"{"type":"teleport","to":"mars"}"#.utf8)
        try await expectRejected(
            withUnsafeBytes(of: UInt32(body.count).bigEndian, Array.init) + body, code: .malformedFrame,
            reason: "malformed-frame")
    }

    @Test("a request before hello is refused with not-authenticated")
    func beforeHello() async throws {
        try await withTestServer { server in
            let raw = try await RawConnection.connect(to: server.endpoint)
            try await raw.write(.join(Join(channel: "deck")))
            let answers = try await raw.collectUntilClosed()
            guard case .error(let error)? = answers.last else { throw TestFailure("expected an error frame") }
            #expect(error.code == .notAuthenticated)
        }
    }

    @Test("garbage bytes in many sizes never take the server down")
    func garbage() async throws {
        try await withTestServer { server in
            let secret = try await server.addUser("alice")
            var generator = SystemRandomNumberGenerator()
            for round in 0..<40 {
                let length = Int.random(in: 1...300, using: &generator)
                var bytes = (0..<length).map { _ in UInt8.random(in: 0...255, using: &generator) }
                // plausible prefix, garbage body
                if round % 2 == 0 { bytes = withUnsafeBytes(of: UInt32(length).bigEndian, Array.init) + bytes }
                let raw = try await RawConnection.connect(to: server.endpoint)
                try? await raw.write(bytes)  // the server may already have closed on the length prefix
                if round % 2 == 0 { _ = try await raw.collectUntilClosed() } else { try? await raw.channel.close() }
            }
            let peer = try await server.connect("alice", secret: secret)
            #expect(try await peer.join("deck").channel.name == "deck")
        }
    }
}
