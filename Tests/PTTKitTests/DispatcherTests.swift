import NIOCore
import NIOEmbedded
import PTTProtocol
import TestSupport
import Testing

@testable import PTTKit

/// The client's routing of inbound frames: an answer to the request waiting for its id, everything else
/// to the message stream; closing fails whatever still waits.
@Suite("Dispatcher: answers to requests, the rest to the stream")
struct DispatcherTests {
    /// A dispatcher, the stream it feeds and a channel for its timers.
    struct Rig {
        let dispatcher: Dispatcher
        let messages: AsyncStream<ControlMessage>
        let channel = NIOAsyncTestingChannel()

        init() {
            let (messages, continuation) = AsyncStream<ControlMessage>.makeStream()
            self.messages = messages
            dispatcher = Dispatcher(continuation: continuation)
        }

        /// Starts a request for `id` and returns once its waiter is registered (`send` has run).
        func request(
            _ id: Int, timeout: Duration = .seconds(3600), what: String = "answer"
        ) async -> Task<ControlMessage, Error> {
            let (sent, sentContinuation) = AsyncStream<Void>.makeStream()
            let task = Task { [dispatcher, channel] in
                try await dispatcher.awaitReply(id: id, on: channel, timeout: timeout, what: what) {
                    sentContinuation.yield()
                }
            }
            for await _ in sent { break }
            return task
        }

        /// Everything the stream carried, once the dispatcher is closed.
        func streamed() async -> [ControlMessage] {
            dispatcher.closed()
            var all: [ControlMessage] = []
            for await message in messages { all.append(message) }
            return all
        }
    }

    static func answer(_ id: Int?, _ text: String = "answer") -> ControlMessage {
        .error(ErrorFrame(re: id, code: .noSuchChannel, message: text))
    }

    static let welcome = ControlMessage.welcome(
        Welcome(version: 1, server: "pttd", session: "s", heartbeatIntervalMs: 15_000, memberships: []))

    @Test("request ids count up from 1")
    func ids() {
        let rig = Rig()
        #expect((0..<3).map { _ in rig.dispatcher.nextID() } == [1, 2, 3])
        #expect(Dispatcher.welcomeID < 1)
    }

    @Test("an answer goes to the request waiting for its id, and not to the stream")
    func answerToWaiter() async throws {
        let rig = Rig()
        let first = await rig.request(1)
        let second = await rig.request(2)
        rig.dispatcher.received(Self.answer(2, "second"))
        rig.dispatcher.received(Self.answer(1, "first"))
        #expect(try await first.value == Self.answer(1, "first"))
        #expect(try await second.value == Self.answer(2, "second"))
        #expect(await rig.streamed().isEmpty)
    }

    @Test("messages nobody waits for go to the stream in order: events, and answers to ids nobody waits for")
    func restToStream() async throws {
        let rig = Rig()
        let beat = ControlMessage.heartbeat(Heartbeat(seq: 4))
        rig.dispatcher.received(beat)
        rig.dispatcher.received(Self.answer(9, "nobody asked"))
        rig.dispatcher.received(Self.answer(nil, "no id"))
        #expect(await rig.streamed() == [beat, Self.answer(9, "nobody asked"), Self.answer(nil, "no id")])
    }

    @Test("welcome answers the hello and never reaches the stream, even when nobody waits")
    func welcome() async throws {
        let rig = Rig()
        let hello = await rig.request(Dispatcher.welcomeID)
        rig.dispatcher.received(Self.welcome)
        #expect(try await hello.value == Self.welcome)
        rig.dispatcher.received(Self.welcome)
        #expect(await rig.streamed().isEmpty)
    }

    @Test("an error without a request id answers a waiting hello")
    func errorAnswersHello() async throws {
        let rig = Rig()
        let hello = await rig.request(Dispatcher.welcomeID)
        let refusal = ControlMessage.error(ErrorFrame(code: .badCredentials, message: "no"))
        rig.dispatcher.received(refusal)
        #expect(try await hello.value == refusal)
        #expect(await rig.streamed().isEmpty)
    }

    @Test(
        "closing fails every waiting request with connectionClosed, ends the stream, and fails later requests at once")
    func closing() async throws {
        let rig = Rig()
        let waiting = await rig.request(1)
        rig.dispatcher.closed()
        for task in [waiting] {
            let error = await #expect(throws: ControlClientError.self) { try await task.value }
            guard case .connectionClosed? = error else {
                Issue.record("expected connectionClosed, got \(String(describing: error))")
                continue
            }
        }
        var iterator = rig.messages.makeAsyncIterator()
        #expect(await iterator.next() == nil)
        // After the close: the waiter is not registered, and `send` does not run.
        let late = Task { [dispatcher = rig.dispatcher, channel = rig.channel] in
            try await dispatcher.awaitReply(id: 2, on: channel, timeout: .seconds(3600), what: "late") {
                Issue.record("a request was sent on a closed connection")
            }
        }
        let error = await #expect(throws: ControlClientError.self) { try await late.value }
        guard case .connectionClosed? = error else {
            Issue.record("expected connectionClosed, got \(String(describing: error))")
            return
        }
    }

    @Test("a request not answered within its timeout fails with timedOut; its late answer goes to the stream")
    func timeout() async throws {
        let rig = Rig()
        let request = await rig.request(1, timeout: .seconds(5), what: "joined")
        await rig.channel.testingEventLoop.advanceTime(by: .milliseconds(4_999))
        rig.dispatcher.received(.heartbeat(Heartbeat(seq: 1)))  // not an answer: the request still waits
        await rig.channel.testingEventLoop.advanceTime(by: .milliseconds(1))
        let error = await #expect(throws: ControlClientError.self) { try await request.value }
        guard case .timedOut(let what)? = error else {
            Issue.record("expected timedOut, got \(String(describing: error))")
            return
        }
        #expect(what == "joined")
        rig.dispatcher.received(Self.answer(1, "late"))
        #expect(await rig.streamed() == [.heartbeat(Heartbeat(seq: 1)), Self.answer(1, "late")])
    }

    @Test("an answer in time is not failed by its timer later")
    func answeredBeforeTimeout() async throws {
        let rig = Rig()
        let request = await rig.request(1, timeout: .seconds(5))
        rig.dispatcher.received(Self.answer(1))
        #expect(try await request.value == Self.answer(1))
        await rig.channel.testingEventLoop.advanceTime(by: .seconds(10))
        #expect(await rig.streamed().isEmpty)
    }
}
