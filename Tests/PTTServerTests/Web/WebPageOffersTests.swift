import Foundation
import PTTProtocol
import ServerTestSupport
import TestSupport
import Testing

/// What the server tells the walkie-talkie page so it can offer the right things (issue 23, item 8): the channels a
/// browser a link signs in can join, and whether a channel is recorded (the replay button).
@Suite("Web page offers")
struct WebPageOffersTests {
    struct SignedIn: Decodable {
        var user: String
        var secret: String
        var channels: [String]
    }

    @Test("a sign-in link's answer names the user's channels first, then the server's others, each by name")
    func signInOffersChannels() async throws {
        try await withTestServer { server in
            let web = try require_(server.server.runtimeInfo?.webURL)
            let janeSecret = try await server.addUser("jane")
            let bobSecret = try await server.addUser("bob")
            let phone = try await server.connect("jane", secret: janeSecret, device: "phone")
            _ = try await phone.join("deck")
            _ = try await phone.join("bridge")
            let bob = try await server.connect("bob", secret: bobSecret)
            _ = try await bob.join("engine")
            _ = try await server.admin.post(
                "/api/channels", body: CreateChannelRequest(name: "aft"), as: ChannelSummary.self)
            let link: SignInLinkResponse = try await server.admin.post(
                "/api/users/jane/links", body: SignInLinkRequest())
            let answer = try await WebListenerTests.request(
                web + "/api/sign-in", method: .POST, body: #"{"link":"\#(link.token)"}"#)
            #expect(answer.status == 200)
            let signedIn = try JSONDecoder().decode(SignedIn.self, from: Data(answer.body.utf8))
            #expect(signedIn.user == "jane")
            #expect(signedIn.channels == ["bridge", "deck", "aft", "engine"])
            await phone.client.close()
            await bob.client.close()
        }
    }

    @Test("joined and welcome say whether the channel is recorded")
    func joinedSaysRecorded() async throws {
        try await withTestServer(configure: { $0.recording.channels = ["bridge"] }) { server in
            let secret = try await server.addUser("jane")
            let jane = try await server.connect("jane", secret: secret, device: "phone")
            #expect(try await jane.join("bridge").recorded == true)
            #expect(try await jane.join("deck").recorded == false)
            _ = try await server.admin.put(
                "/api/channels/deck/recording", body: ChannelRecording(channel: "deck", recording: true),
                as: ChannelRecording.self)
            await jane.client.close()
            let again = try await server.connect("jane", secret: secret, device: "phone")
            #expect(again.welcome.memberships.map(\.recorded) == [true, true])
            await again.client.close()
        }
    }
}
