import Logging
import NIOCore
import PTTCore
import PTTStore

/// The control plane's changes to the channel directory, stored without the plane waiting for them.
///
/// Operations queue here in the order they are made. At its turn the queue takes every operation waiting (a
/// thousand joins arriving together become one transaction: group commit), plans them one after the other against
/// the directory as stored, and hands the write to the ``StorageQueue``. The plane's loop goes on meanwhile: floor
/// requests, heartbeats, presence and replays never wait for a disk or a database. When the write is stored, it is
/// applied and each operation answers, in order; the next write starts then. One write at a time keeps every plan
/// exact (it builds only on what is stored), and the changes reach storage in the order they were made.
///
/// A write that meets another node's change (``StorageConflict``) reloads the directory and plans its operations
/// again, at most ``attempts`` times. A write that fails answers each of its operations with the error and changes
/// nothing, in memory or in storage. Confined to the plane's event loop.
final class DirectoryWrites {
    private enum Item {
        case operation(DirectoryOperation)
        /// Load the stored directory and apply what changed (another node's change), then call this (false: storage
        /// could not be read).
        case reload((Bool) -> Void)
        /// Another storage call that must keep its place among the directory's writes (announcements, sign-in
        /// links): it starts in turn, and the next write waits for the future it returns.
        case call(() -> EventLoopFuture<Void>)
    }

    /// How many writes are tried when each meets another node's change first.
    static let attempts = 4
    /// Operations waiting past this are refused at once: a storage that cannot keep up costs bounded memory.
    static let limit = 20_000

    unowned let plane: ControlPlane
    private var waiting: [Item] = [] {
        didSet { updateGauge() }
    }
    /// Operations in the write out now (0: none out).
    private var inWrite = 0 {
        didSet { updateGauge() }
    }
    private var writing = false
    private var turnQueued = false

    init(plane: ControlPlane) {
        self.plane = plane
    }

    private func updateGauge() {
        plane.context.metrics.channels.directoryWritesWaiting.set(Double(waiting.count + inWrite))
    }

    /// Queues `operation`; it is planned, stored and answered in its turn.
    func submit(_ operation: DirectoryOperation) {
        guard waiting.count < Self.limit else {
            operation.refused(DirectoryWritesBusy(waiting: waiting.count))
            return
        }
        waiting.append(.operation(operation))
        queueTurn()
    }

    /// Loads the stored directory (changed by another node) in turn, applies and tells what changed, then calls
    /// `done` (with false if storage could not be read).
    func reload(then done: @escaping (Bool) -> Void) {
        waiting.append(.reload(done))
        queueTurn()
    }

    /// Runs `call` in turn: after every directory write queued before it is stored, and before any queued after
    /// it starts (announcements refer to memberships: they are written against the memberships as stored).
    /// Past ``limit`` waiting, `refused` is called instead.
    func inTurn(
        refused: @escaping (DirectoryWritesBusy) -> Void, _ call: @escaping () -> EventLoopFuture<Void>
    ) {
        guard waiting.count < Self.limit else { return refused(DirectoryWritesBusy(waiting: waiting.count)) }
        waiting.append(.call(call))
        queueTurn()
    }

    /// The first operation of a quiet queue waits for the end of the loop turn: the joins read with it go with it.
    private func queueTurn() {
        guard !writing, !turnQueued else { return }
        turnQueued = true
        plane.eventLoop.execute {
            self.turnQueued = false
            self.next()
        }
    }

    private func next() {
        guard !writing, let first = waiting.first else { return }
        writing = true
        switch first {
        case .reload(let done):
            waiting.removeFirst()
            inWrite = 1
            return plane.loadStoredDirectory { loaded in
                done(loaded)
                self.finished()
            }
        case .call(let call):
            waiting.removeFirst()
            inWrite = 1
            return call().whenComplete { _ in self.finished() }
        case .operation:
            break
        }
        let count = waiting.prefix { if case .operation = $0 { true } else { false } }.count
        let batch = waiting.prefix(count).compactMap { item -> DirectoryOperation? in
            if case .operation(let operation) = item { operation } else { nil }
        }
        waiting.removeFirst(count)
        write(batch, attempt: 1)
    }

    private func finished() {
        writing = false
        inWrite = 0
        if !waiting.isEmpty { next() }
    }

    /// A batch being planned: the directory as the operations planned so far leave it.
    private struct Planning {
        var batch: [DirectoryOperation]
        var next = 0
        var directory: ChannelDirectory
        var planned: [(operation: DirectoryOperation, change: PlannedChange)] = []
        var changes: [DirectoryChange] = []
    }

    /// Plans `batch` against the stored directory, writes it in one transaction, and answers in order. Planning
    /// and answering run ``chunk`` operations per loop turn: a floor request arriving meanwhile waits for one chunk,
    /// never for a whole batch of a thousand joins.
    private func write(_ batch: [DirectoryOperation], attempt: Int) {
        plan(Planning(batch: batch, directory: plane.directory), attempt: attempt)
    }

    /// How many operations are planned, or answered, in one turn of the plane's loop.
    static let chunk = 32

    private func plan(_ planning: Planning, attempt: Int) {
        var planning = planning
        let end = min(planning.batch.count, planning.next + Self.chunk)
        while planning.next < end {
            let operation = planning.batch[planning.next]
            planning.next += 1
            do {
                let change = try operation.plan(&planning.directory)
                planning.planned.append((operation, change))
                planning.changes += change.changes
            } catch {
                operation.refused(error)
                // The refused plan may have changed part of the directory: start again from what the batch plans.
                planning.directory = plane.directory
                planning.directory.apply(planning.changes)
            }
        }
        guard planning.next == planning.batch.count else {
            return plane.eventLoop.execute { self.plan(planning, attempt: attempt) }
        }
        store(planning.planned, planning.changes, attempt: attempt)
    }

    private func store(
        _ stored: [(operation: DirectoryOperation, change: PlannedChange)], _ changes: [DirectoryChange], attempt: Int
    ) {
        guard !changes.isEmpty else { return answer(stored.map(\.change), from: 0) }
        let write = Self.ordered(changes)
        inWrite = stored.count
        plane.storage.run { try $0.write(write) }.whenComplete { result in
            switch result {
            case .success:
                self.plane.applyStored(write)
                if stored.contains(where: \.change.isJoin) {
                    self.plane.context.metrics.channels.joinBatches.increment()
                }
                self.answer(stored.map(\.change), from: 0)
            case .failure(let conflict as StorageConflict) where attempt < Self.attempts:
                self.plane.logger.info(
                    "a directory write met another node's change: planning it again",
                    metadata: [
                        "operations": "\(stored.count)", "attempt": "\(attempt)", "conflict": "\(conflict.reason)",
                    ])
                self.plane.loadStoredDirectory { loaded in
                    guard loaded else { return self.fail(stored.map(\.change), conflict) }
                    self.write(stored.map(\.operation), attempt: attempt + 1)
                }
            case .failure(let error):
                self.plane.logger.error(
                    "storage write failed",
                    metadata: ["operations": "\(stored.count)", "error": "\(self.plane.storage.describe(error))"])
                self.fail(stored.map(\.change), error)
            }
        }
    }

    /// Answers the stored operations from `index` on, ``chunk`` per loop turn, then starts the next write.
    private func answer(_ changes: [PlannedChange], from index: Int) {
        let end = min(changes.count, index + Self.chunk)
        for change in changes[index..<end] { change.stored() }
        guard end == changes.count else { return plane.eventLoop.execute { self.answer(changes, from: end) } }
        finished()
    }

    private func fail(_ changes: [PlannedChange], _ error: any Error) {
        for change in changes { change.failed(error) }
        finished()
    }

    /// The channels a write creates first, by name, then the rest in order. Two nodes creating some of the same
    /// channels then take the database's locks on their names in the same order: one waits for the other (and
    /// adopts its channels), where in any order they could deadlock. A write that also removes a channel keeps its
    /// order: a channel deleted and made again by name in one write must go before it comes back.
    static func ordered(_ changes: [DirectoryChange]) -> [DirectoryChange] {
        guard !changes.contains(where: { if case .removeChannel = $0 { true } else { false } }) else { return changes }
        var channels: [PTTCore.Channel] = []
        var rest: [DirectoryChange] = []
        for change in changes {
            if case .putChannel(let channel) = change { channels.append(channel) } else { rest.append(change) }
        }
        return channels.sorted { $0.name < $1.name }.map(DirectoryChange.putChannel) + rest
    }
}

/// More directory operations wait than ``DirectoryWrites/limit``: storage is not keeping up.
struct DirectoryWritesBusy: Error, CustomStringConvertible {
    var waiting: Int
    var description: String { "the server is busy storing \(waiting) earlier changes: try again" }
}
