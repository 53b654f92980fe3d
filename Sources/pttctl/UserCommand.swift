import ArgumentParser
import Foundation
import PTTAdmin
import PTTKit
import PTTProtocol

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Add, list or remove users, and set their rights.",
        subcommands: [Add.self, Link.self, List.self, Rights.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user and print its generated secret (shown only once).")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "User name.") var name: String
        @Option(help: "Floor priority (higher pre-empts lower), -1000...1000.") var priority = 0
        @Flag(help: "The user may listen but never talk.") var receiveOnly = false
        @Option(
            name: .customLong("right"),
            help: "A right beyond talking and listening: emergency (declare emergencies) or broadcast. Repeatable.")
        var rights: [String] = []
        @Flag(help: "Also print a sign-in link for the browser walkie-talkie (works once; see `user link`).")
        var link = false
        @OptionGroup var linkOptions: LinkOptions

        func run() async throws {
            let client = try admin.client()
            let added: AddUserResponse = try await adminCall {
                try await client.post(
                    "/api/users",
                    body: AddUserRequest(
                        name: name, priority: priority, receiveOnly: receiveOnly,
                        rights: rights.isEmpty ? nil : try Rights.parse(rights)))
            }
            print("user: \(added.name)")
            print("secret: \(added.secret)")
            if link { try await linkOptions.makeLink(for: name, client: client) }
        }
    }

    struct Link: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print a sign-in link for the browser walkie-talkie.",
            discussion: """
                Opened once in a browser before it expires, the link signs that browser in as the user, with a \
                credential of its own (the user's secret and other browsers keep working). Send it to the person \
                only: whoever opens it first is signed in.
                """)
        @OptionGroup var admin: AdminOptions
        @Argument(help: "User name.") var name: String
        @OptionGroup var linkOptions: LinkOptions

        func run() async throws {
            try await linkOptions.makeLink(for: name, client: try admin.client())
        }
    }

    /// How a sign-in link is made and shown.
    struct LinkOptions: ParsableArguments {
        @Option(name: .customLong("link-ttl"), help: "How long the link works: 15m (default), 2h, 1d (60 s to 7 days).")
        var ttl: String?
        @Option(
            help:
                "Host name or address to put in the link instead of the server's (what browsers reach, e.g. ptt.ship.lan)."
        )
        var webHost: String?

        func makeLink(for name: String, client: AdminClient) async throws {
            var seconds: Int?
            if let ttl {
                do { seconds = try parseDuration(ttl) } catch { throw ValidationError("--link-ttl: \(error)") }
            }
            let made: SignInLinkResponse = try await adminCall {
                try await client.post(
                    "/api/users/\(AdminClient.segment(name))/links", body: SignInLinkRequest(ttlSeconds: seconds))
            }
            print("link: \(Self.url(made.url, host: webHost))")
            print("expires: \(made.expiresAt) (works once)")
        }

        /// `url` with its host replaced by `host`, if given.
        static func url(_ url: String, host: String?) -> String {
            guard let host, var components = URLComponents(string: url) else { return url }
            components.host = host
            return components.string ?? url
        }
    }

    struct List: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "List users.")
        @OptionGroup var admin: AdminOptions
        @Flag(help: "Print JSON.") var json = false

        func run() async throws {
            let client = try admin.client()
            let users: [UserStatus] = try await adminCall { try await client.get("/api/users") }
            if json { return try printJSON(users) }
            if users.isEmpty { return print("no users") }
            print(
                Table.render(
                    header: ["USER", "PRIORITY", "RECV-ONLY", "RIGHTS", "MEMBERSHIPS", "CREATED"],
                    rows: users.map {
                        [
                            $0.name, "\($0.priority)", $0.receiveOnly ? "yes" : "no", Rights.listed($0.rights),
                            "\($0.memberships)", $0.createdAt,
                        ]
                    }))
        }
    }

    struct Rights: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Set a user's rights: emergency (declare emergencies on its channels), broadcast.",
            discussion: """
                The rights listed replace the user's rights; none takes them all away. An emergency the user \
                declared stays until it is cleared (`pttctl emergency clear CHANNEL`).
                """)
        @OptionGroup var admin: AdminOptions
        @Argument(help: "User name.") var name: String
        @Argument(help: "Rights: emergency, broadcast (none: no rights).") var rights: [String] = []

        func run() async throws {
            let client = try admin.client()
            let request = UserRightsRequest(rights: try Self.parse(rights))
            let user: UserStatus = try await adminCall {
                try await client.put("/api/users/\(AdminClient.segment(name))/rights", body: request)
            }
            print("\(user.name): rights \(Self.listed(user.rights))")
        }

        /// The rights named on the command line; an unknown one is refused here, with the known ones.
        static func parse(_ names: [String]) throws -> [UserRight] {
            try names.map {
                let right = UserRight(rawValue: $0)
                guard right.isKnown else {
                    let known = UserRight.known.map(\.rawValue).joined(separator: ", ")
                    throw ValidationError("unknown right '\($0)': \(known)")
                }
                return right
            }
        }

        static func listed(_ rights: [UserRight]?) -> String {
            guard let rights, !rights.isEmpty else { return "-" }
            return rights.map(\.rawValue).joined(separator: ",")
        }
    }

    struct Remove: AsyncParsableCommand {
        static let configuration = CommandConfiguration(abstract: "Remove a user, its memberships and its connections.")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "User name.") var name: String

        func run() async throws {
            let client = try admin.client()
            try await adminCall { try await client.perform(.DELETE, "/api/users/\(AdminClient.segment(name))") }
            print("removed user \(name)")
        }
    }
}
