import PTTCore
import TestSupport
import Testing

@Suite("Admission control: per-address caps, failed-hello blocks, bounded memory")
struct AdmissionControlTests {
    static func limits(_ change: (inout ConnectionLimits) -> Void = { _ in }) -> ConnectionLimits {
        var limits = ConnectionLimits()
        limits.exemptLoopback = false
        limits.perAddressConnections = 2
        limits.failedHellosPerAddress = 3
        limits.failedHelloWindow = .seconds(10)
        limits.addressBlock = .seconds(30)
        change(&limits)
        return limits
    }

    let t0 = PTTInstant(nanoseconds: 1_000_000_000)

    @Test("an address at its cap is refused, once logged; a slot freed admits it again")
    func perAddressCap() {
        var gate = AdmissionControl(limits: Self.limits(), maxConnections: 100)
        #expect(gate.connectionOpened(from: "a", loopback: false, now: t0) == .admit)
        #expect(gate.connectionOpened(from: "a", loopback: false, now: t0) == .admit)
        #expect(gate.connectionOpened(from: "a", loopback: false, now: t0) == .refuse(.addressFull, firstInSpell: true))
        #expect(
            gate.connectionOpened(from: "a", loopback: false, now: t0) == .refuse(.addressFull, firstInSpell: false))
        #expect(gate.connectionOpened(from: "b", loopback: false, now: t0) == .admit)
        _ = gate.connectionClosed(from: "a", loopback: false, authenticated: true, now: t0)
        #expect(gate.connectionOpened(from: "a", loopback: false, now: t0) == .admit)
        #expect(gate.open == 3)
    }

    @Test("the server cap applies to every address, loopback included")
    func serverCap() {
        var gate = AdmissionControl(limits: Self.limits { $0.exemptLoopback = true }, maxConnections: 2)
        #expect(gate.connectionOpened(from: "127.0.0.1", loopback: true, now: t0) == .admit)
        #expect(gate.connectionOpened(from: "b", loopback: false, now: t0) == .admit)
        #expect(
            gate.connectionOpened(from: "127.0.0.1", loopback: true, now: t0)
                == .refuse(.serverFull, firstInSpell: true))
        #expect(gate.connectionOpened(from: "c", loopback: false, now: t0) == .refuse(.serverFull, firstInSpell: false))
    }

    @Test("loopback skips the per-address limits when exempt, and is tracked by nothing")
    func loopbackExempt() {
        var gate = AdmissionControl(limits: Self.limits { $0.exemptLoopback = true }, maxConnections: 100)
        for _ in 0..<10 { #expect(gate.connectionOpened(from: "127.0.0.1", loopback: true, now: t0) == .admit) }
        for _ in 0..<10 {
            #expect(gate.connectionClosed(from: "127.0.0.1", loopback: true, authenticated: false, now: t0) == nil)
        }
        #expect(gate.trackedAddresses == 0)
        #expect(gate.open == 0)
    }

    @Test("failed hellos within the window block the address; the block ends on time")
    func blockAfterFailures() {
        var gate = AdmissionControl(limits: Self.limits(), maxConnections: 100)
        var notices: [AdmissionControl.Notice] = []
        for second in 0..<3 {
            let now = t0 + .seconds(second)
            #expect(gate.connectionOpened(from: "a", loopback: false, now: now) == .admit)
            if let notice = gate.connectionClosed(from: "a", loopback: false, authenticated: false, now: now) {
                notices.append(notice)
            }
        }
        #expect(notices == [.blocked(address: "a", failures: 3, until: t0 + .seconds(2) + .seconds(30))])
        #expect(
            gate.connectionOpened(from: "a", loopback: false, now: t0 + .seconds(3))
                == .refuse(.addressBlocked, firstInSpell: true))
        #expect(
            gate.connectionOpened(from: "a", loopback: false, now: t0 + .seconds(4))
                == .refuse(.addressBlocked, firstInSpell: false))
        #expect(gate.connectionOpened(from: "b", loopback: false, now: t0 + .seconds(4)) == .admit)
        #expect(gate.connectionOpened(from: "a", loopback: false, now: t0 + .seconds(32)) == .admit)
    }

    @Test("failures spread wider than the window never block; authenticated connections never count")
    func windowResets() {
        var gate = AdmissionControl(limits: Self.limits(), maxConnections: 100)
        for step in 0..<20 {
            let now = t0 + .seconds(step * 6)
            #expect(gate.connectionOpened(from: "a", loopback: false, now: now) == .admit)
            #expect(gate.connectionClosed(from: "a", loopback: false, authenticated: step % 3 == 0, now: now) == nil)
        }
    }

    @Test(
        "memory is bounded: idle addresses are forgotten; beyond maxTrackedAddresses only addresses with open connections are kept"
    )
    func bounded() {
        var generator = SplitMix64(seed: 8)
        var gate = AdmissionControl(limits: Self.limits(), maxConnections: 10_000, maxTrackedAddresses: 64)
        var open: [String] = []
        var peakOpenAddresses = 0
        for step in 0..<20_000 {
            let now = t0 + .milliseconds(step)
            if !open.isEmpty, Bool.random(using: &generator) {
                let address = open.remove(at: Int.random(in: 0..<open.count, using: &generator))
                _ = gate.connectionClosed(
                    from: address, loopback: false, authenticated: Bool.random(using: &generator), now: now)
            } else {
                let address =
                    "10.0.\(Int.random(in: 0..<40, using: &generator)).\(Int.random(in: 0..<250, using: &generator))"
                if gate.connectionOpened(from: address, loopback: false, now: now) == .admit { open.append(address) }
            }
            peakOpenAddresses = max(peakOpenAddresses, Set(open).count)
            #expect(gate.open == open.count)
            // Entries are added only while fewer than 64 are kept, or when every kept one has connections open.
            #expect(gate.trackedAddresses <= max(64, peakOpenAddresses))
        }
    }
}
