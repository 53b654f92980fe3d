import Testing

@testable import PTTCore

/// The pure private-call book (Docs/CALLS-DESIGN.md): who may ring whom, who answers, and when a call ends.
@Suite("Private calls: the call book")
struct CallBookTests {
    let call = ChannelID()
    let annPhone = MemberID("0000000000a1")

    static func at(_ ms: Int) -> PTTInstant { PTTInstant(nanoseconds: UInt64(ms) * 1_000_000) }

    func ringing(_ configuration: CallConfiguration = CallConfiguration(), busy: Bool = false) -> CallBook {
        var book = CallBook(configuration: configuration)
        _ = book.place(call, caller: annPhone, callerUser: "ann", callee: "bob", calleeBusy: busy, now: Self.at(1000))
        return book
    }

    @Test func aCallRingsTheCalleeAndRingsOutAfterTheTimeout() {
        var book = CallBook(configuration: CallConfiguration(ringTimeout: .seconds(30)))
        let actions = book.place(
            call, caller: annPhone, callerUser: "ann", callee: "bob", calleeBusy: false, now: Self.at(1000))
        guard case .ring(let ringing, let waiting) = actions.first, actions.count == 1 else {
            Issue.record("expected one ring, got \(actions)")
            return
        }
        #expect(ringing.callee == "bob" && ringing.caller == annPhone && !waiting)
        #expect(book.isInCall("ann") && book.isInCall("bob") && !book.isInCall("carol"))
        #expect(book.nextDeadline == Self.at(31_000))
        #expect(book.timersExpired(now: Self.at(30_999)) == [])
        #expect(book.timersExpired(now: Self.at(31_000)) == [.end(call, .noAnswer, by: nil)])
        #expect(book.ringing.isEmpty && book.nextDeadline == nil && !book.isInCall("ann"))
    }

    @Test func refusedBeforeRinging() {
        var book = ringing()
        let other = ChannelID()
        let bobPhone = MemberID("0000000000b1")
        #expect(
            book.place(other, caller: bobPhone, callerUser: "bob", callee: "bob", calleeBusy: false, now: Self.at(2))
                == [.refuse(.callsItself)])
        #expect(
            book.place(other, caller: annPhone, callerUser: "ann", callee: "carol", calleeBusy: false, now: Self.at(2))
                == [.refuse(.callerBusy)])
        #expect(
            book.place(other, caller: bobPhone, callerUser: "carol", callee: "bob", calleeBusy: false, now: Self.at(2))
                == [.refuse(.calleeBusy)])
        var full = CallBook(configuration: CallConfiguration(maxRinging: 1))
        _ = full.place(call, caller: annPhone, callerUser: "ann", callee: "bob", calleeBusy: false, now: Self.at(1))
        #expect(
            full.place(other, caller: bobPhone, callerUser: "carol", callee: "dave", calleeBusy: false, now: Self.at(2))
                == [.refuse(.tooManyRinging)])
        #expect(full.ringing.count == 1)
    }

    @Test func onlyTheCalleeAcceptsAndTheFirstAcceptWins() {
        var book = ringing()
        #expect(book.accept(call, by: "ann", device: "phone", now: Self.at(2000)) == [], "the caller cannot accept")
        guard
            case .connect(let connected, let device) = book.accept(
                call, by: "bob", device: "tablet", now: Self.at(2000)
            ).first
        else {
            Issue.record("expected connect")
            return
        }
        #expect(connected.id == call && device == "tablet")
        #expect(book.accept(call, by: "bob", device: "phone", now: Self.at(2001)) == [], "answered on another device")
        #expect(book.connected[call]?.lastBurstAt == Self.at(2000))
        #expect(book.isInCall("bob"))
    }

    @Test func declineAndHangUp() {
        var book = ringing()
        #expect(book.decline(call, by: "carol") == [])
        #expect(book.decline(call, by: "bob") == [.end(call, .declined, by: nil)])
        #expect(book.ringing.isEmpty)

        book = ringing()
        #expect(book.hangUp(call, by: "ann") == [.end(call, .hungUp, by: "ann")], "the caller gives up")
        book = ringing()
        #expect(book.hangUp(call, by: "bob") == [.end(call, .declined, by: nil)], "a callee's hang-up declines")
        book = ringing()
        _ = book.accept(call, by: "bob", device: "phone", now: Self.at(2000))
        #expect(book.hangUp(call, by: "carol") == [], "not a side")
        #expect(book.hangUp(call, by: "bob") == [.end(call, .hungUp, by: "bob")])
        #expect(book.connected.isEmpty && !book.isInCall("ann"))
    }

    @Test func aConnectedCallEndsAfterSilenceButNotDuringABurst() {
        var book = ringing(CallConfiguration(idleTimeout: .seconds(60)))
        _ = book.accept(call, by: "bob", device: "phone", now: Self.at(2000))
        #expect(book.nextDeadline == Self.at(62_000))
        book.burst(call, talking: true, now: Self.at(10_000))
        #expect(book.nextDeadline == nil, "no silence is counted while someone talks")
        #expect(book.timersExpired(now: Self.at(100_000)) == [])
        book.burst(call, talking: false, now: Self.at(100_000))
        #expect(book.timersExpired(now: Self.at(159_999)) == [])
        #expect(book.timersExpired(now: Self.at(160_000)) == [.end(call, .silence, by: nil)])
    }

    @Test func aBusyCalleeIsRungWaitingOrHeldByPolicy() {
        var book = CallBook(configuration: CallConfiguration(whileBusy: .ring))
        let waiting = book.place(
            call, caller: annPhone, callerUser: "ann", callee: "bob", calleeBusy: true, now: Self.at(1))
        guard case .ring(_, true) = waiting.first else {
            Issue.record("expected a waiting ring, got \(waiting)")
            return
        }

        var queued = CallBook(configuration: CallConfiguration(whileBusy: .queue))
        let held = queued.place(
            call, caller: annPhone, callerUser: "ann", callee: "bob", calleeBusy: true, now: Self.at(1000))
        guard case .hold(let holding) = held.first, held.count == 1 else {
            Issue.record("expected the call held, got \(held)")
            return
        }
        #expect(holding.held && queued.ringing[call]?.held == true)
        #expect(
            queued.accept(call, by: "bob", device: "phone", now: Self.at(1500)) == [], "a held call is not rung yet")
        let rung = queued.calleeFree("bob")
        guard case .ring(let call, false) = rung.first, rung.count == 1 else {
            Issue.record("expected one ring when the burst ended, got \(rung)")
            return
        }
        #expect(call.held == false)
        #expect(queued.calleeFree("bob") == [], "rung once")
        #expect(
            queued.timersExpired(now: Self.at(31_000)) == [.end(call.id, .noAnswer, by: nil)], "within the ring timeout"
        )
    }

    @Test func anOperatorEndsAnyCallAndAnUnreachableCalleeEndsItAtOnce() {
        var book = ringing()
        #expect(book.endByOperator(call) == [.end(call, .byOperator, by: nil)])
        #expect(book.endByOperator(call) == [])
        book = ringing()
        #expect(book.unreachable(call) == [.end(call, .unavailable, by: nil)])
        #expect(!book.isInCall("bob"))
    }
}
