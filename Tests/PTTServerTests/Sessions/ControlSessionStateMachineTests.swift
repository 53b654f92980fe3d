import PTTProtocol
import Testing

@testable import PTTServer

/// The control connection's rules, without sockets: hello first and in time, heartbeats and misses,
/// back-pressure, and closing after a violation once earlier requests are answered.
@Suite("Control connection state machine")
struct ControlSessionStateMachineTests {
    typealias Machine = ControlSessionStateMachine

    private func authenticated(maxRequests: Int = 4, missLimit: Int = 3) -> Machine {
        var machine = Machine(maxRequestsInFlight: maxRequests, heartbeatMissLimit: missLimit)
        #expect(machine.channelActive() == .start)
        #expect(machine.received(.hello) == .forwardHello)
        #expect(machine.helloSucceeded() == .authenticated(startHeartbeats: true))
        #expect(machine.requestDone() == .none)
        return machine
    }

    @Test(
        "hello first: anything else before it closes with not-authenticated; a second hello with already-authenticated")
    func helloFirst() {
        for frame: Machine.Frame in [.request, .heartbeat(seq: 1), .heartbeatAck(seq: 1)] {
            var machine = Machine(maxRequestsInFlight: 4, heartbeatMissLimit: 3)
            _ = machine.channelActive()
            guard case .reject(let rejection) = machine.received(frame) else {
                Issue.record("\(frame) was not rejected")
                continue
            }
            #expect(rejection.code == .notAuthenticated)
            #expect(machine.received(.hello) == .none, "nothing is read after a rejection")
        }
        var machine = authenticated()
        guard case .reject(let rejection) = machine.received(.hello) else {
            Issue.record("a second hello was accepted")
            return
        }
        #expect(rejection.code == .alreadyAuthenticated)
    }

    @Test("the hello deadline closes only a connection that has not sent hello")
    func helloDeadline() {
        var waiting = Machine(maxRequestsInFlight: 4, heartbeatMissLimit: 3)
        _ = waiting.channelActive()
        #expect(waiting.helloDeadlinePassed() == .closeForHelloTimeout)
        #expect(waiting.phase == .closing)

        var sent = Machine(maxRequestsInFlight: 4, heartbeatMissLimit: 3)
        _ = sent.channelActive()
        _ = sent.received(.hello)
        #expect(sent.helloDeadlinePassed() == .none, "a hello in time waits for the plane however long it takes")
    }

    @Test("heartbeats: each unacknowledged one counts, an acknowledgement resets, the limit closes")
    func heartbeats() {
        var machine = authenticated(missLimit: 2)
        #expect(machine.heartbeatDue() == .sendHeartbeat(seq: 1, missedOne: false))
        #expect(machine.received(.heartbeatAck(seq: 1)) == .heartbeatAcknowledged)
        #expect(machine.unacknowledged == 0)
        #expect(
            machine.received(.heartbeatAck(seq: 7)) == .none,
            "an acknowledgement of a heartbeat never sent does not count")
        #expect(machine.heartbeatDue() == .sendHeartbeat(seq: 2, missedOne: false))
        #expect(machine.heartbeatDue() == .sendHeartbeat(seq: 3, missedOne: true))
        #expect(
            machine.received(.heartbeatAck(seq: 2)) == .heartbeatAcknowledged,
            "an older acknowledgement still proves the client was alive")
        #expect(machine.unacknowledged == 1)
        #expect(machine.heartbeatDue() == .sendHeartbeat(seq: 4, missedOne: true))
        #expect(machine.heartbeatDue() == .closeForMissedHeartbeats(missed: 2))
        #expect(machine.heartbeatDue() == .none)
        #expect(machine.received(.heartbeat(seq: 9)) == .none)
    }

    @Test("a client's heartbeat is answered; heartbeats start once only")
    func clientHeartbeat() {
        var machine = authenticated()
        #expect(machine.received(.heartbeat(seq: 42)) == .answerHeartbeat(seq: 42))
        #expect(machine.helloSucceeded() == .authenticated(startHeartbeats: false))
    }

    @Test("reading pauses while too many requests wait for the plane and resumes at half")
    func backPressure() {
        var machine = authenticated(maxRequests: 4)
        for _ in 0..<4 { #expect(machine.received(.request) == .forward) }
        #expect(machine.readRequested() == .none)
        #expect(machine.requestDone() == .none, "3 still waiting: not below half")
        #expect(machine.requestDone() == .none, "2 waiting is half, not below")
        #expect(machine.requestDone() == .read)
        #expect(machine.readRequested() == .read)
    }

    @Test("a violation after requests still owed closes once they are answered; with none owed, at once")
    func rejectAfterAnswers() {
        var machine = authenticated()
        #expect(machine.received(.request) == .forward)
        #expect(machine.received(.request) == .forward)
        let rejection = Machine.Rejection(code: .malformedFrame, message: "bad")
        #expect(machine.frameError(rejection) == .rejectAfterAnswers(rejection))
        #expect(machine.readRequested() == .none, "nothing more is read")
        #expect(machine.requestDone() == .none)
        #expect(machine.requestDone() == .closeAfterAnswers(ErrorFrame(code: .malformedFrame, message: "bad")))
        #expect(machine.frameError(rejection) == .none, "closing already")

        var idle = authenticated()
        #expect(idle.frameError(rejection) == .reject(rejection))
    }

    @Test("nothing happens before the connection is active")
    func beforeActive() {
        var machine = Machine(maxRequestsInFlight: 4, heartbeatMissLimit: 3)
        #expect(machine.received(.hello) == .none)
        #expect(machine.helloDeadlinePassed() == .none)
        #expect(machine.channelActive() == .start)
        #expect(machine.channelActive() == .none)
    }
}
