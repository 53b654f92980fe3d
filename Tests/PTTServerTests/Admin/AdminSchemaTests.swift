import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// schemathesis against a running pttd: every admin route gets generated valid and invalid input (paths, queries,
/// bodies) and must answer a documented status with a documented content type and body, never a 5xx, and never hang.
@Suite(
    "Admin API under schemathesis", .timeLimit(.minutes(5)),
    .enabled(if: Schemathesis.python != nil, Schemathesis.unavailableReason))
struct AdminSchemaTests {
    /// Cases per operation and phase: about 2 400 requests in all, 40–50 s on two busy cores.
    static let maxExamples = 150
    /// The run is killed past this (a hang), which fails the test.
    static let maxSeconds = 150

    @Test("every route answers generated input as documented: no 5xx, no undocumented status or body, no hang")
    func generatedInput() async throws {
        // TLS on, so that `GET /api/certificate` answers a CertificateReport rather than `404`.
        try await withTestServer(configure: {
            $0.tls = true
            $0.implicitFloorRequest = false
        }) { server in
            // What the document's examples name (`deck`, `alice`, burst 1): a channel with members and a recorded
            // burst, so that the examples reach answers with bodies (details, histories, Ogg files).
            let crew = try await RelayTests.crew(server, ["alice", "bob"])
            let _: ChannelRecording = try await server.admin.put(
                "/api/channels/deck/recording", body: ChannelRecording(recording: true))
            let fixture = try Fixtures.opus("burst-20ms-mono.opus")
            try await RecordingTests.burst(crew[0], fixture.packets, heardBy: crew[1])
            _ = try await RecordingTests.history(server, count: 1)

            let outcome = try await Schemathesis.run(
                schemaURL: server.admin.baseURL + "/api/openapi.json", token: try require_(server.server.adminToken),
                maxExamples: Self.maxExamples, maxSeconds: Self.maxSeconds)
            print("schemathesis: \(outcome.cases) cases, exit \(outcome.exitStatus)")
            #expect(outcome.exitStatus == 0, "schemathesis found failures:\n\(outcome.output.suffix(12_000))")
            #expect(
                outcome.cases > 500, "schemathesis ran only \(outcome.cases) cases:\n\(outcome.output.suffix(4000))")
            for talker in crew { await talker.peer.client.close() }
        }
    }
}
