import ArgumentParser
import PTTClient
import PTTProtocol

struct UserCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "user", abstract: "Add, list or remove users.", subcommands: [Add.self, List.self, Remove.self])

    struct Add: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Add a user and print its generated secret (shown only once).")
        @OptionGroup var admin: AdminOptions
        @Argument(help: "User name.") var name: String
        @Option(help: "Floor priority (higher pre-empts lower), -1000...1000.") var priority = 0
        @Flag(help: "The user may listen but never talk.") var receiveOnly = false

        func run() async throws {
            let client = try admin.client()
            let added: AddUserResponse = try await adminCall {
                try await client.post(
                    "/api/users", body: AddUserRequest(name: name, priority: priority, receiveOnly: receiveOnly))
            }
            print("user: \(added.name)")
            print("secret: \(added.secret)")
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
                    header: ["USER", "PRIORITY", "RECV-ONLY", "MEMBERSHIPS", "CREATED"],
                    rows: users.map {
                        [$0.name, "\($0.priority)", $0.receiveOnly ? "yes" : "no", "\($0.memberships)", $0.createdAt]
                    }))
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
