import APNs
import NIOPosix
import PTTProtocol
import PTTRelay

extension PTTDaemon {
    /// The running configuration (a reload replaces what it can apply), the certificate given to clients, and
    /// what `runtime.json` says.
    struct Live {
        var configuration: ServerConfiguration
        var identity: TLSIdentity?
        var info: RuntimeInfo?
        /// The APNs client in use.
        var apns: APNsClient?
        /// APNs clients a reload replaced, shut down when their requests had their time (or at shutdown).
        var retiredAPNs: [APNsClient] = []
        var reloading = false
    }

    /// What a started daemon holds: its threads, listeners, relay, recorder and plane.
    struct Running {
        var plane: ControlPlane
        /// The control plane's own thread: storage writes (fsync) there never delay a connection's TLS or reads.
        var planeGroup: MultiThreadedEventLoopGroup
        /// The relay's own thread: no connection's TLS or JSON ever delays a packet.
        var relayGroup: MultiThreadedEventLoopGroup
        var control: ControlServer
        var admin: AdminServer
        /// The browser walkie-talkie, unless `web` is off.
        var web: WebServer?
        var relay: MediaRelay
        /// Recorded bursts are written on their own thread.
        var recorder: BurstRecorder
        var recordingGroup: MultiThreadedEventLoopGroup
        var adminToken: String
        /// What each new connection is given (TLS context, heartbeats, deadlines); a reload replaces it.
        var settings: ListenerSettings
        /// This pttd's place in a cluster, if it is a node of one.
        var cluster: ClusterNode? = nil
        /// Its links to the other nodes.
        var nodeLinks: NodeLinks? = nil
    }
}
