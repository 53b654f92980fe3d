import PTTKit
import Testing

/// `HOST`, `HOST:PORT`, `[V6]` and `[V6]:PORT`, as `ptt` and `pttctl` take them on the command line.
@Suite("Server endpoints: parsing and printing")
struct ServerEndpointTests {
    @Test(
        "accepted forms",
        arguments: [
            ("radio.local", "radio.local", 7700),
            ("radio.local:7800", "radio.local", 7800),
            ("127.0.0.1", "127.0.0.1", 7700),
            ("127.0.0.1:1", "127.0.0.1", 1),
            ("127.0.0.1:65535", "127.0.0.1", 65535),
            ("[::1]", "::1", 7700),
            ("[::1]:7701", "::1", 7701),
            ("[fe80::1%eth0]:9", "fe80::1%eth0", 9),
        ])
    func accepted(text: String, host: String, port: Int) throws {
        let endpoint = try #require(ServerEndpoint(parsing: text))
        #expect(endpoint == ServerEndpoint(host: host, port: port))
    }

    @Test("the default port is used when none is given, and only then")
    func defaultPort() throws {
        #expect(try #require(ServerEndpoint(parsing: "radio.local", defaultPort: 9000)).port == 9000)
        #expect(try #require(ServerEndpoint(parsing: "[::1]", defaultPort: 9000)).port == 9000)
        #expect(try #require(ServerEndpoint(parsing: "radio.local:7700", defaultPort: 9000)).port == 7700)
    }

    @Test(
        "refused forms",
        arguments: [
            "",  // no host
            ":7700",  // no host
            "[]:7700",  // empty IPv6 host
            "radio.local:",  // empty port
            "radio.local:http",  // port not a number
            "radio.local:0",  // port out of range
            "radio.local:65536",
            "radio.local:-1",
            "[::1",  // unclosed bracket
            "[::1]7700",  // no colon after the bracket
            "[::1]:",  // empty port after the bracket
            "[::1]:99999",
        ])
    func refused(text: String) {
        #expect(ServerEndpoint(parsing: text) == nil, "\(text) was accepted")
    }

    @Test("an IPv6 address without brackets is a host with the default port, never host and port")
    func bareIPv6() throws {
        // Several colons: the last one is not taken for a port separator.
        let endpoint = try #require(ServerEndpoint(parsing: "fe80::7700"))
        #expect(endpoint == ServerEndpoint(host: "fe80::7700", port: 7700))
        #expect(try #require(ServerEndpoint(parsing: "::1")).host == "::1")
    }

    @Test("printing gives back what parses to the same endpoint; IPv6 hosts in brackets")
    func description() throws {
        #expect(ServerEndpoint(host: "radio.local", port: 7700).description == "radio.local:7700")
        #expect(ServerEndpoint(host: "::1", port: 7701).description == "[::1]:7701")
        for endpoint in [
            ServerEndpoint(host: "radio.local", port: 7800), ServerEndpoint(host: "::1", port: 1),
            ServerEndpoint(host: "10.0.0.2", port: 65535),
        ] {
            #expect(ServerEndpoint(parsing: endpoint.description) == endpoint)
        }
    }
}
