import PTTProtocol
import Testing

@testable import PTTKit

@Suite("ReconnectAttempts: quick attempts while a link is dead, full ones on a slow path")
struct ReconnectAttemptsTests {
    @Test("quick attempts of 500 ms (4 × the last TCP time if longer) go at once, doubling after ten, up to the cap")
    func quickThenLonger() {
        var attempts = ReconnectAttempts()
        #expect(attempts.timeout(connectTimeout: .seconds(3), lastTCP: .milliseconds(1)) == .milliseconds(500))
        #expect(attempts.timeout(connectTimeout: .seconds(3), lastTCP: .milliseconds(200)) == .milliseconds(800))
        #expect(!attempts.retryAtOnce)
        for _ in 0..<10 { attempts.unansweredInTime() }
        #expect(attempts.retryAtOnce)
        #expect(attempts.timeout(connectTimeout: .seconds(3), lastTCP: nil) == .seconds(1))
        attempts.unansweredInTime()
        #expect(attempts.timeout(connectTimeout: .seconds(3), lastTCP: nil) == .seconds(2))
        attempts.unansweredInTime()
        #expect(attempts.timeout(connectTimeout: .seconds(3), lastTCP: nil) == .seconds(3), "capped")
        attempts.failed()
        #expect(!attempts.retryAtOnce, "a refused connection backs off as usual")
        attempts.connected()
        #expect(attempts == ReconnectAttempts())
    }

    @Test("a handshake too slow for a quick attempt makes the next ones full length")
    func slowPath() {
        var attempts = ReconnectAttempts()
        attempts.handshakeTooSlow()
        #expect(attempts.timeout(connectTimeout: .seconds(3), lastTCP: .milliseconds(1)) == .seconds(3))
    }

    @Test("refused credentials, version or hello and a changed certificate cannot be cured by retrying; the rest can")
    func cannotHelp() {
        let refused = { (code: ErrorCode) in ControlClientError.refused(ErrorFrame(code: code, message: "")) }
        #expect(ReconnectAttempts.cannotHelp(refused(.badCredentials)))
        #expect(ReconnectAttempts.cannotHelp(refused(.unsupportedVersion)))
        #expect(
            ReconnectAttempts.cannotHelp(
                ControlClientError.certificateChanged(endpoint: "e", expected: "a", actual: "b", knownHostsFile: "f")))
        #expect(!ReconnectAttempts.cannotHelp(refused(.shuttingDown)))
        #expect(!ReconnectAttempts.cannotHelp(ControlClientError.connectFailed(endpoint: "e", reason: "refused")))
        #expect(!ReconnectAttempts.cannotHelp(ControlClientError.timedOut("welcome")))
    }
}
