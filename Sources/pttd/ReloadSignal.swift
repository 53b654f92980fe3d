import Dispatch
import Foundation
import Logging
import PTTServer

/// SIGHUP: the server reads its configuration again (``PTTDaemon/reload()``); the outcome goes to the log, as
/// `pttctl reload` would print it.
final class ReloadSignal: @unchecked Sendable {
    // @unchecked: the dispatch source is only resumed and cancelled, which it allows from any thread.
    private let source: any DispatchSourceSignal

    init(server: PTTDaemon, logger: Logger) {
        signal(SIGHUP, SIG_IGN)  // the dispatch source gets it instead of the default action (exit)
        let source = DispatchSource.makeSignalSource(signal: SIGHUP, queue: .global())
        source.setEventHandler {
            logger.notice("SIGHUP: reloading the configuration")
            Task {
                do {
                    _ = try await server.reload()
                } catch {
                    // reload() logged the refusal with its reason; a busy or stopped server is said here.
                    if case .invalid = error as? ReloadError {
                    } else {
                        logger.warning("SIGHUP ignored", metadata: ["why": "\(error)"])
                    }
                }
            }
        }
        source.resume()
        self.source = source
    }

    func cancel() { source.cancel() }
}
