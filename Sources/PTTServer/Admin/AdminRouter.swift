import Foundation
import NIOCore
import NIOHTTP1
import PTTProtocol

/// An admin API answer: status, content type and body.
struct AdminResponse: Sendable {
    var status: HTTPResponseStatus
    var contentType = "application/json"
    var body: [UInt8] = []
    /// Headers besides content type, length and connection (the console's files carry security headers).
    var headers: [(String, String)] = []

    static func json<T: Encodable>(_ value: T, status: HTTPResponseStatus = .ok) -> AdminResponse {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var body: [UInt8] = (try? encoder.encode(value)).map { [UInt8]($0) } ?? []
        body.append(0x0A)
        return AdminResponse(status: status, body: body)
    }

    static func error(_ error: AdminError) -> AdminResponse {
        json(error, status: HTTPResponseStatus(statusCode: (error.code ?? .internal).httpStatus))
    }
}

/// Maps admin API requests to ``ControlPlane`` operations. Runs on the plane's event loop.
/// The routes are listed in Docs/PROTOCOL.md ("Admin API").
package struct AdminRouter {
    let plane: ControlPlane
    let metrics: ServerMetrics
    /// `GET /api/backup`, where the daemon provides it.
    let backups: Backups?
    /// `POST /api/reload` and `GET /api/certificate`, where the daemon provides them.
    let operations: Operations?

    /// What only the whole daemon can answer.
    struct Operations: Sendable {
        /// Re-reads the configuration and applies it (answered when done, on the given loop).
        var reload: @Sendable (EventLoop) -> EventLoopFuture<AdminResponse>
        /// The certificate clients are given.
        var certificate: @Sendable () -> AdminResponse
    }

    package init(plane: ControlPlane, metrics: ServerMetrics) {
        self.init(plane: plane, metrics: metrics, backups: nil, operations: nil)
    }

    init(plane: ControlPlane, metrics: ServerMetrics, backups: Backups?, operations: Operations?) {
        self.plane = plane
        self.metrics = metrics
        self.backups = backups
        self.operations = operations
    }

    /// The answer to a request: at once, or (audio read from recordings) when the recorder has it.
    func respond(method: HTTPMethod, path: String, body: [UInt8]) -> EventLoopFuture<AdminResponse> {
        let (segments, query) = Self.split(path)
        do {
            switch (method, segments.count, segments.first, segments.count > 1 ? segments[1] : "") {
            case (.GET, 4, "api", "channels") where segments[3] == "export":
                let channel = try recorded(segments[2], query)
                let gap = try query.integer("gapMs", in: 0...60_000) ?? 500
                return plane.recordings.export(channel, since: try query.since(), gap: .milliseconds(gap))
            case (.GET, 2, "api", "backup"):
                guard let backups else { throw AdminError(.notFound, "backups are not available here") }
                return backups.take()
            case (.POST, 2, "api", "reload"):
                guard let operations else { throw AdminError(.notFound, "reloads are not available here") }
                return operations.reload(plane.eventLoop)
            case (.GET, 2, "api", "certificate"):
                guard let operations else { throw AdminError(.notFound, "no certificate here") }
                return plane.eventLoop.makeSucceededFuture(operations.certificate())
            case (.GET, 4, "api", "bursts") where segments[3] == "audio":
                guard let id = Int64(segments[2]) else {
                    throw AdminError(.badRequest, "'\(segments[2])' is not a burst id")
                }
                return plane.recordings.audio(id)
            case (.GET, 4, "api", "channels") where segments[3] == "bursts":
                let channel = try recorded(segments[2], query)
                let limit = try query.integer("limit", in: 1...10_000) ?? 1000
                return answer(plane.recordings.history(channel, since: try query.since(), limit: limit))
            case (.GET, 2, "api", "nodes"):
                return answer(plane.admin.nodes())
            case (.GET, 2, "api", "channels"):
                return answer(plane.admin.listChannels())
            case (.POST, 2, "api", "channels"):
                let request = try decode(CreateChannelRequest.self, body)
                return answer(plane.admin.createChannel(request), status: .created)
            case (.DELETE, 3, "api", "channels"):
                return answer(plane.admin.deleteChannel(segments[2]))
            case (.PUT, 4, "api", "channels") where segments[3] == "recording":
                let on = try decode(ChannelRecording.self, body).recording
                return answer(plane.recordings.setRecording(segments[2], on))
            case (.DELETE, 4, "api", "channels") where segments[3] == "emergency":
                return answer(plane.emergencies.clearByOperator(segments[2]))
            case (.DELETE, 5, "api", "channels") where segments[3] == "members":
                return answer(plane.admin.kick(channel: segments[2], member: segments[4]))
            case (.POST, 4, "api", "channels") where segments[3] == "announce":
                let request = try decode(AnnounceRequest.self, body)
                let channel = try plane.admin.channel(segments[2])
                return answer(plane.announcements.announce(channel, request), status: .created)
            case (.POST, 4, "api", "users") where segments[3] == "links":
                let request = body.isEmpty ? SignInLinkRequest() : try decode(SignInLinkRequest.self, body)
                return answer(plane.signInLinks.make(user: segments[2], request), status: .created)
            case (.PUT, 4, "api", "users") where segments[3] == "rights":
                return answer(plane.admin.setRights(segments[2], try decode(UserRightsRequest.self, body)))
            case (.POST, 2, "api", "users"):
                return answer(plane.admin.addUser(try decode(AddUserRequest.self, body)), status: .created)
            case (.DELETE, 3, "api", "users"):
                return answer(plane.admin.removeUser(segments[2]))
            default:
                return plane.eventLoop.makeSucceededFuture(route(method: method, path: path, body: body))
            }
        } catch {
            return plane.eventLoop.makeSucceededFuture(
                .error(error as? AdminError ?? AdminError(.internal, "\(error)")))
        }
    }

    /// A change's answer once it is stored: its value as JSON, or its error.
    private func answer<T: Encodable & SendableMetatype>(
        _ future: EventLoopFuture<T>, status: HTTPResponseStatus = .ok
    ) -> EventLoopFuture<AdminResponse> {
        future.map { .json($0, status: status) }.recover { .error($0 as? AdminError ?? AdminError(.internal, "\($0)")) }
    }

    /// A change with no body to answer: 204 once stored, or its error.
    private func answer(_ future: EventLoopFuture<Void>) -> EventLoopFuture<AdminResponse> {
        future.map { AdminResponse(status: .noContent) }.recover {
            .error($0 as? AdminError ?? AdminError(.internal, "\($0)"))
        }
    }

    /// The path's segments (percent-decoded) and its query.
    static func split(_ path: String) -> ([String], AdminQuery) {
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        let segments = (parts.first.map(String.init) ?? "").split(separator: "/").map {
            String($0).removingPercentEncoding ?? String($0)
        }
        return (segments, AdminQuery(parts.count > 1 ? String(parts[1]) : ""))
    }

    func route(method: HTTPMethod, path: String, body: [UInt8]) -> AdminResponse {
        let (segments, _) = Self.split(path)
        do {
            switch (method, segments.count, segments.first, segments.count > 1 ? segments[1] : "") {
            case (.GET, 1, "metrics", _):
                if let backups { metrics.disk.update(path: backups.directory) }
                return AdminResponse(status: .ok, contentType: "text/plain; version=0.0.4", body: metrics.exposition())
            case (.GET, 2, "api", "health"):
                return .json(["status": "ok"])
            case (.GET, 2, "api", "openapi.json"):
                return AdminAPIDescription.response
            case (.GET, 3, "api", "channels"):
                return .json(try plane.admin.channelDetail(segments[2]))
            case (.POST, 4, "api", "channels") where segments[3] == "revoke":
                try plane.admin.revokeFloor(segments[2])
                return AdminResponse(status: .noContent)
            case (.GET, 2, "api", "wakes"):
                return .json(plane.admin.wakeTotals())
            case (.GET, 2, "api", "users"):
                return .json(plane.admin.listUsers())
            case (.GET, 2, "api", "calls"):
                return .json(plane.calls.list())
            case (.DELETE, 3, "api", "calls"):
                try plane.calls.endByOperator(segments[2])
                return AdminResponse(status: .noContent)
            case (.GET, 2, "api", "broadcasts"):
                return .json(plane.broadcasts.list())
            case (.DELETE, 3, "api", "broadcasts"):
                try plane.broadcasts.endByOperator(segments[2])
                return AdminResponse(status: .noContent)
            default:
                return .error(AdminError(.notFound, "no route \(method.rawValue) \(path)"))
            }
        } catch {
            return .error(error)
        }
    }

    /// Whose recordings a history or export reads: the live channel, or with `deleted=true` the deleted ones that
    /// had this name.
    private func recorded(_ name: String, _ query: AdminQuery) throws(AdminError) -> RecordedChannel {
        if try query.flag("deleted") { return .deleted(name) }
        do { return .live(try plane.admin.channel(name)) } catch {
            throw AdminError(.notFound, "\(error.message); the recordings of a deleted channel: deleted=true")
        }
    }

    private func decode<T: Decodable>(_ type: T.Type, _ body: [UInt8]) throws(AdminError) -> T {
        do { return try JSONDecoder().decode(T.self, from: Data(body)) } catch {
            throw AdminError(.badRequest, "request body is not a valid \(T.self): \(error)")
        }
    }
}
