import Foundation
import NIOConcurrencyHelpers
import NIOCore
import NIOPosix
import PTTStore
import TestSupport
import Testing

/// The queue the control plane hands its storage calls to: in order, answered on the caller's loop, and refused
/// (not lost, not leaked) once it has shut down.
@Suite("Storage queue")
struct StorageQueueTests {
    static func store() throws -> SQLiteStore {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent("storage-queue-\(UUID())")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        return try SQLiteStore(path: directory.appendingPathComponent("pttd.sqlite").path)
    }

    /// The future's answer, or a failure if there is none within `limit` (a call handed to a stopped thread is
    /// never answered).
    static func answer<T: Sendable>(
        _ future: EventLoopFuture<T>, within limit: TimeAmount = .seconds(5)
    ) async throws -> T {
        let promise = future.eventLoop.makePromise(of: T.self)
        let timer = future.eventLoop.scheduleTask(in: limit) { promise.fail(TestFailure("no answer within \(limit)")) }
        future.whenComplete { result in
            timer.cancel()
            promise.completeWith(result)
        }
        return try await promise.futureResult.get()
    }

    @Test("calls run one after another, in the order made, and answer on the caller's loop")
    func orderAndLoop() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let queue = StorageQueue(try Self.store(), answeringOn: loop)
        let ran = NIOLockedValueBox<[Int]>([])
        let answers = (0..<50).map { index in
            queue.run { _ -> Bool in
                ran.withLockedValue { $0.append(index) }
                return !loop.inEventLoop  // the call itself is not on the caller's loop
            }.map { offLoop in offLoop && loop.inEventLoop }
        }
        for answer in answers { #expect(try await Self.answer(answer)) }
        #expect(ran.withLockedValue { $0 } == Array(0..<50))
        await queue.shutdown()
    }

    @Test(
        "a call queued before shutdown is answered; one made after is refused at once with the reason, on the caller's loop"
    )
    func shutdownRefuses() async throws {
        let loop = MultiThreadedEventLoopGroup.singleton.next()
        let queue = StorageQueue(try Self.store(), answeringOn: loop)
        let slow = queue.run { store -> Int in
            Thread.sleep(forTimeInterval: 0.05)
            return try store.load().channels.count
        }
        await queue.shutdown()
        #expect(try await Self.answer(slow) == 0)
        // Made after the thread stopped: before the fix this was handed to a stopped loop and never answered (its
        // promise leaked, which stops a debug build: pttd did so when a session ended during its shutdown).
        let late = try await loop.submit { queue.run { try $0.load().channels.count }.map { _ in loop.inEventLoop } }
            .get()
        await #expect(throws: StorageQueue.Closed.self) { try await Self.answer(late) }
        let lateError = await #expect(throws: StorageQueue.Closed.self) {
            try await Self.answer(queue.run { _ in 1 })
        }
        #expect(lateError.map { queue.describe($0) } == "the server is shutting down")
    }
}
