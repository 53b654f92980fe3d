import Foundation
import PTTServer
import Testing

@Suite("The config file")
struct ConfigurationTests {
    func write(_ text: String) throws -> String {
        let path = TestServer.temporaryDirectory() + "/config.json"
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        return path
    }

    @Test("every key is optional and overrides the default")
    func partialFile() throws {
        let path = try write(#"{"controlPort": 7800, "floor": {"maxTalkTimeMs": 15000}, "heartbeatIntervalMs": 5000}"#)
        let configuration = try ServerConfiguration.load(from: path)
        #expect(configuration.controlPort == 7800)
        #expect(configuration.adminPort == 7701)
        #expect(configuration.adminHost == "127.0.0.1")
        #expect(configuration.floor.maxTalkTime == .seconds(15))
        #expect(configuration.floor.endOfMediaTimeout == .seconds(2))
        #expect(configuration.heartbeatInterval == .seconds(5))
        #expect(configuration.tls)
    }

    @Test("a bad file names the file and what is wrong in it")
    func errors() throws {
        let cases: [(String, String)] = [
            (#"{"controlPort": "seventy"}"#, "controlPort"),
            (#"{"controlPort": 70000}"#, "controlPort must be 0...65535"),
            (#"{"mediaSecurity": "rot13"}"#, "mediaSecurity"),
            (#"{"floor": {"maxTalkTimeMs": -1}}"#, "maxTalkTimeMs"),
            ("not json", "not valid JSON"),
        ]
        for (text, expected) in cases {
            let path = try write(text)
            do {
                _ = try ServerConfiguration.load(from: path)
                Issue.record("accepted \(text)")
            } catch {
                #expect(error.description.contains(path), "\(error)")
                #expect(error.description.contains(expected), "\(error) should mention \(expected)")
            }
        }
        #expect(throws: ConfigurationError.self) { try ServerConfiguration.load(from: "/nonexistent/config.json") }
    }

    @Test("the encoded defaults read back as the defaults")
    func roundTrip() throws {
        let data = try JSONEncoder().encode(ServerConfiguration())
        #expect(try JSONDecoder().decode(ServerConfiguration.self, from: data) == ServerConfiguration())
    }
}
