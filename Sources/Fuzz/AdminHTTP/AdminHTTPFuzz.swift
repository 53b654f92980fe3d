import Logging
import NIOCore
import NIOEmbedded
import NIOHTTP1
import PTTCore
import PTTServer
import PTTStore

/// The admin HTTP server: raw bytes through NIO's HTTP/1 server pipeline and `AdminHTTPHandler`
/// in an `EmbeddedChannel`, routed to a real `ControlPlane` over an in-memory SQLite store. Each
/// input gets a fresh plane and store, so no state carries from one input to the next. The seeds
/// carry the right bearer token (``token``).
enum AdminHTTPFuzz {
    static let token = "fuzz-admin-token"
    static let logger = Logger(label: "fuzz-admin-http", factory: { _ in SwiftLogNoOpLogHandler() })

    struct FixedClock: PTTClock {
        func now() -> PTTInstant { PTTInstant(nanoseconds: 1_000_000_000) }
    }

    static func run(_ input: UnsafeRawBufferPointer) {
        let channel = EmbeddedChannel()
        defer { _ = try? channel.finish() }
        do {
            let metrics = ServerMetrics()
            let plane = try ControlPlane(
                eventLoop: channel.embeddedEventLoop, configuration: ServerConfiguration(),
                store: SQLiteStore(path: ":memory:"), metrics: metrics, clock: FixedClock(),
                storageLoop: channel.embeddedEventLoop, logger: logger)
            let router = AdminRouter(plane: plane, metrics: metrics)
            try channel.pipeline.syncOperations.configureHTTPServerPipeline(withErrorHandling: true)
            try channel.pipeline.syncOperations.addHandler(
                AdminHTTPHandler(router: router, token: token, metrics: metrics, logger: logger))
        } catch {
            preconditionFailure("could not set up the admin pipeline: \(error)")
        }
        let split = input.count / 2
        for part in [input[..<split], input[split...]] {
            guard
                (try? channel.writeInbound(channel.allocator.buffer(bytes: UnsafeRawBufferPointer(rebasing: part))))
                    != nil
            else { break }
            channel.embeddedEventLoop.run()
        }
        channel.embeddedEventLoop.run()
        while (try? channel.readOutbound(as: IOData.self)) != nil {}
    }
}
