import NIOCore
import ServiceLifecycle

/// One of the daemon's listening sockets (control, admin, the relay's UDP socket) as a `Service` of the daemon's
/// `ServiceGroup`: it runs while its socket is open, and a graceful shutdown or cancellation closes it (no new
/// connections or datagrams). Connections already open are the daemon's to close, after the listeners.
///
/// A listener whose socket closes by itself ends its run, which ends the group: the daemon stops rather than run
/// without one of its sockets.
struct ListenerService: Service {
    /// What it listens for, for the log.
    let name: String
    let channel: NIOCore.Channel

    func run() async throws {
        let channel = self.channel
        try await withGracefulShutdownHandler {
            try await withTaskCancellationHandler {
                try await channel.closeFuture.get()
            } onCancel: {
                channel.close(promise: nil)
            }
        } onGracefulShutdown: {
            channel.close(promise: nil)
        }
    }
}
