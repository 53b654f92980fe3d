import Foundation
import PTTCore
import PTTKit
import PTTProtocol
import PTTServer
import RTP
import ServerTestSupport
import TestSupport
import Testing

// Reading wakes back from a server: push frames a peer received, wake totals and member status from the admin API.

/// The `push` frames among a peer's unread messages.
func pushes(_ messages: [ControlMessage]) -> [PushFrame] {
    messages.compactMap { if case .push(let frame) = $0 { frame } else { nil } }
}

/// The count of one (kind, transport, outcome, reason) row of `GET /api/wakes`, 0 if absent.
func wakeCount(
    _ totals: WakeTotals, _ kind: WakeKind, _ transport: WakeTransport, _ outcome: WakeOutcome, _ reason: String = ""
) -> Int {
    totals.counts.first {
        $0.kind == kind && $0.transport == transport && $0.outcome == outcome && $0.reason == reason
    }?.count ?? 0
}

func member(_ server: TestServer, _ channel: String, user: String) async throws -> MemberStatus {
    let detail: ChannelDetail = try await server.admin.get("/api/channels/\(channel)")
    return try require_(detail.members.first { $0.user == user }, "member \(user)")
}
