import Foundation
import Logging
import NIOConcurrencyHelpers
import NIOCore
import PTTStore
import PostgresNIO

/// This pttd's place in a cluster: its name is held (a session advisory lock, so two pttd never run as one node),
/// its row in `node` says where it listens, and it follows the directory: every directory write by another node is a
/// NOTIFY on ``PostgresStore/directoryNotifications``, on which it reloads.
///
/// It owns channels: every half second it takes the lock of each channel that one of its own members is in and that
/// no live node owns (`pg_try_advisory_lock`), so a channel's first node keeps it, and when its owner dies (its
/// session ends, and its locks with it) a node with members there takes it. It keeps one database connection of its
/// own for the locks and the LISTEN. When that connection drops, the node is not alive for the others and owns
/// nothing until it is back: it reconnects with back-off, takes its name again, and reloads the directory.
package final class ClusterNode: Sendable {
    let name: String
    let location: PostgresLocation
    let logger: Logger
    let metrics: ClusterMetrics
    /// Called (on the connection's thread) when another node changed the directory, or when a reload is due.
    private let directoryChanged: @Sendable (_ reason: String) -> Void
    /// The channels this node's members are in (as channel ids), asked at every round of ownership.
    private let localChannels: @Sendable () async -> [String]
    /// What each round read: the owners of those channels, and every node (empty both when the database
    /// connection is lost: the node then owns nothing and trusts no link).
    private let viewChanged: @Sendable (_ owners: [String: String], _ nodes: [NodeRecord]) -> Void
    /// How often ownership is tried for channels without a live owner.
    static let ownershipInterval = Duration.milliseconds(500)
    /// Three rounds of ownership: long enough for every node to have tried.
    package static var ownershipWindow: Duration { ownershipInterval * 3 }
    private let state = NIOLockedValueBox(State())

    private struct State {
        var connection: PostgresConnection?
        var following: Task<Void, Never>?
        var owning: Task<Void, Never>?
        /// The channels whose lock this node's session holds.
        var owned: Set<String> = []
        var record: NodeRecord?
        var stopped = false
        /// A round asked for out of turn is on its way.
        var roundPending = false
    }

    /// Why a node cannot run.
    struct Refused: Error, CustomStringConvertible {
        var description: String
    }

    init(
        settings: ClusterSettings, logger: Logger, metrics: ClusterMetrics,
        localChannels: @escaping @Sendable () async -> [String],
        viewChanged: @escaping @Sendable (_ owners: [String: String], _ nodes: [NodeRecord]) -> Void = { _, _ in },
        directoryChanged: @escaping @Sendable (_ reason: String) -> Void
    ) throws {
        self.viewChanged = viewChanged
        name = settings.node
        location = try PostgresLocation(url: settings.database)
        self.logger = logger
        self.metrics = metrics
        self.localChannels = localChannels
        self.directoryChanged = directoryChanged
    }

    /// Takes this node's name: throws ``Refused`` if another pttd runs as this node now.
    func claim() async throws {
        let connection = try await connect()
        do {
            guard try await Self.lock(name, on: connection, logger: logger) else {
                throw Refused(
                    description:
                        "node '\(name)' is already running in this cluster (another pttd holds its lock in \(location)): give this one another --node name"
                )
            }
        } catch {
            try? await connection.close()
            throw error
        }
        state.withLockedValue { $0.connection = connection }
        metrics.node.set(1.0)
        metrics.databaseConnected.set(1.0)
    }

    /// Writes this node's row, then follows the directory until ``stop()``.
    func join(as record: NodeRecord) async throws {
        guard let connection = state.withLockedValue({ $0.connection }) else {
            throw Refused(description: "the node has not claimed its name")
        }
        try await connection.query(PostgresClusterRows.register(record), logger: logger)
        let task = Task { [self] in await follow(from: connection) }
        let owning = Task { [self] in await own() }
        state.withLockedValue {
            $0.record = record
            $0.following = task
            $0.owning = owning
        }
        logger.notice(
            "cluster node joined", metadata: ["node": "\(name)", "database": "\(location)"])
    }

    /// Marks this node stopped, closes its connection (its name is free again) and stops following.
    func stop() async {
        let (connection, task, owning) = state.withLockedValue { state in
            state.stopped = true
            defer {
                state.connection = nil
                state.following = nil
                state.owning = nil
                state.owned = []
            }
            return (state.connection, state.following, state.owning)
        }
        // Each wait is bounded: a query on a connection that went silent does not end on cancellation (a node once
        // never stopped under ThreadSanitizer after its database session was terminated).
        owning?.cancel()
        if await withinDeadline(Self.stopWait, { await owning?.value }) == nil {
            logger.warning(
                "ownership rounds did not stop in time: stopping without them", metadata: ["node": "\(name)"])
        }
        if let connection {
            let (name, logger) = (name, logger)
            _ = await withinDeadline(Self.stopWait) {
                _ = try? await connection.query(PostgresClusterRows.deregister(name, at: Date()), logger: logger)
                try? await connection.close()
            }
        }
        task?.cancel()
        _ = await withinDeadline(Self.stopWait) { await task?.value }
    }

    // MARK: Following the directory

    private var stopped: Bool { state.withLockedValue { $0.stopped } }

    private func follow(from first: PostgresConnection) async {
        var connection: PostgresConnection? = first
        var backOff = Duration.milliseconds(200)
        while !stopped, !Task.isCancelled {
            if connection == nil {
                connection = await reconnect()
                guard connection != nil else {
                    try? await Task.sleep(for: backOff)
                    backOff = min(backOff * 2, .seconds(5))
                    continue
                }
            }
            guard let current = connection else { continue }
            backOff = .milliseconds(200)
            do {
                try await current.listen(on: PostgresClusterRows.directoryNotifications) { notifications in
                    // Listening from here on: a reload covers whatever changed before.
                    directoryChanged("listening")
                    for try await notification in notifications where notification.payload != name {
                        directoryChanged(notification.payload)
                    }
                }
            } catch {
                if !stopped {
                    logger.warning(
                        "lost the cluster database connection: reconnecting",
                        metadata: ["node": "\(name)", "error": "\(String(reflecting: error))"])
                }
            }
            try? await current.close()
            connection = nil
            let given = state.withLockedValue { state -> Int in
                if state.connection === current { state.connection = nil }
                defer { state.owned = [] }
                return state.owned.count
            }
            metrics.databaseConnected.set(0.0)
            metrics.channelsOwned.set(0.0)
            if !stopped { metrics.connectionsLost.increment() }
            viewChanged([:], [])
            if given > 0 {
                logger.warning(
                    "gave up every channel this node owned: without the database it cannot prove it owns them",
                    metadata: ["node": "\(name)", "channels": "\(given)"])
            }
        }
    }

    // MARK: Owning channels

    private func own() async {
        while !stopped, !Task.isCancelled {
            await boundedRound()
            try? await Task.sleep(for: Self.ownershipInterval)
        }
    }

    /// Runs a round now, out of turn (one at a time): a floor request on a channel whose owner this node does not
    /// know waits for it.
    func roundNow() {
        let start = state.withLockedValue { state -> Bool in
            defer { state.roundPending = true }
            return !state.roundPending && !state.stopped
        }
        guard start else { return }
        Task {
            await boundedRound()
            state.withLockedValue { $0.roundPending = false }
        }
    }

    /// A round, waited for at most ``roundDeadline``: a round whose query never answers must not hold the rounds after
    /// it (nor ``roundNow``, nor a stop).
    private func boundedRound() async {
        guard await withinDeadline(Self.roundDeadline, { await self.ownRound() }) == nil else { return }
        logger.warning(
            "an ownership round got no answer in time: the next one goes on", metadata: ["node": "\(name)"])
    }

    /// One round: takes the free locks of the channels this node's members are in, then reads who owns them and
    /// which nodes are live (``viewChanged``).
    func ownRound() async {
        let wanted = await localChannels()
        let (connection, owned) = state.withLockedValue { ($0.connection, $0.owned) }
        guard let connection else { return }
        let missing = wanted.filter { !owned.contains($0) }
        do {
            if !missing.isEmpty {
                var taken: [String] = []
                for try await id in try await connection.query(PostgresClusterRows.tryOwn(missing), logger: logger)
                    .decode(
                        String.self)
                {
                    taken.append(id)
                }
                if !taken.isEmpty {
                    let count = state.withLockedValue { state -> Int in
                        // Only if the connection that took them is still this node's: else they went with it.
                        if state.connection === connection { state.owned.formUnion(taken) }
                        return state.owned.count
                    }
                    metrics.channelsOwned.set(Double(count))
                    logger.notice("owns channels", metadata: ["node": "\(name)", "channels": "\(taken.sorted())"])
                }
            }
            // The owners of this node's channels, and of the ones it owns (members elsewhere may hold their floor).
            let asked = Array(Set(wanted).union(state.withLockedValue { $0.owned })).sorted()
            var owners: [String: String] = [:]
            if !asked.isEmpty {
                for try await (channel, node) in try await connection.query(
                    PostgresClusterRows.ownersQuery(asked), logger: logger
                ).decode((String, String).self) {
                    owners[channel] = node
                }
            }
            var nodes: [NodeRecord] = []
            for try await row in try await connection.query(PostgresClusterRows.nodesQuery, logger: logger) {
                nodes.append(try PostgresClusterRows.nodeRecord(row))
            }
            // A round that raced a lost connection says nothing: the loss said it.
            guard state.withLockedValue({ $0.connection === connection }) else { return }
            viewChanged(owners, nodes)
        } catch {
            logger.debug("ownership round failed", metadata: ["error": "\(String(reflecting: error))"])
        }
    }

    /// A new connection holding this node's name again, with its row rewritten; nil while that fails.
    private func reconnect() async -> PostgresConnection? {
        var opened: PostgresConnection?
        do {
            let connection = try await connect()
            opened = connection
            guard try await Self.lock(name, on: connection, logger: logger) else {
                logger.critical(
                    "another pttd took this node's name while its connection was down",
                    metadata: ["node": "\(name)"])
                try? await connection.close()
                return nil
            }
            if let record = state.withLockedValue({ $0.record }) {
                try await connection.query(PostgresClusterRows.register(record), logger: logger)
            }
            let stale = state.withLockedValue { state -> Bool in
                if state.stopped { return true }
                state.connection = connection
                return false
            }
            if stale {
                try? await connection.close()
                return nil
            }
            metrics.databaseConnected.set(1.0)
            logger.notice("cluster database connection back", metadata: ["node": "\(name)"])
            return connection
        } catch {
            try? await opened?.close()  // connected, then the lock or the row failed
            logger.warning(
                "cannot reach the cluster database",
                metadata: ["node": "\(name)", "error": "\(PostgresFailure.wrapping(error))"])
            return nil
        }
    }
}
