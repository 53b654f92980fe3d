import Foundation
import NIOSSL
import PostgresNIO

/// Where a PostgreSQL database is, from a URL in libpq's form:
/// `postgres://USER[:PASSWORD]@HOST[:PORT]/DATABASE[?sslmode=disable|require][&host=/socket/directory]`.
///
/// `host=` names a directory holding the server's Unix socket (`.s.PGSQL.PORT`), as libpq's parameter does; the
/// URL's host may then be empty (`postgres://pttd@/pttd?host=/run/postgresql`). Over TCP, `sslmode=require`
/// (verified against the system's trust roots) is the default unless the host is a loopback address;
/// `sslmode=disable` turns TLS off. A password can also come from `PGPASSWORD`.
public struct PostgresLocation: Sendable, Equatable, CustomStringConvertible {
    /// How to reach the server.
    public enum Endpoint: Sendable, Equatable {
        case tcp(host: String, port: Int, tls: Bool)
        case unixSocket(path: String)
    }

    public var endpoint: Endpoint
    public var user: String
    public var password: String?
    public var database: String

    /// Why a URL is not a PostgreSQL location.
    public struct Invalid: Error, CustomStringConvertible, Equatable {
        public var description: String
    }

    /// Parses `url`; `environment` supplies `PGPASSWORD` when the URL has no password.
    public init(url: String, environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        func invalid(_ why: String) -> Invalid {
            Invalid(description: "'\(Self.redacted(url))' is not a PostgreSQL URL: \(why)")
        }
        guard let parts = URLComponents(string: url) else { throw invalid("it cannot be parsed") }
        guard parts.scheme == "postgres" || parts.scheme == "postgresql" else {
            throw invalid("it must start with postgres://")
        }
        guard let user = parts.user, !user.isEmpty else { throw invalid("it names no user (postgres://USER@HOST/DB)") }
        let database = String(parts.path.drop(while: { $0 == "/" }))
        guard !database.isEmpty, !database.contains("/") else {
            throw invalid("it names no database (postgres://USER@HOST/DB)")
        }
        var options: [String: String] = [:]
        for item in parts.queryItems ?? [] {
            guard let value = item.value else { throw invalid("option '\(item.name)' has no value") }
            guard ["sslmode", "host"].contains(item.name) else {
                throw invalid("unknown option '\(item.name)' (known: sslmode, host)")
            }
            options[item.name] = value
        }
        let port = parts.port ?? 5432
        guard (1...65535).contains(port) else { throw invalid("port \(port) is out of range") }
        if let directory = options["host"] {
            guard directory.hasPrefix("/") else { throw invalid("host= must be the directory of a Unix socket") }
            endpoint = .unixSocket(path: "\(directory)/.s.PGSQL.\(port)")
        } else {
            guard let host = parts.host, !host.isEmpty else { throw invalid("it names no host") }
            let loopback = ["localhost", "127.0.0.1", "::1", "[::1]"].contains(host)
            let tls: Bool
            switch options["sslmode"] {
            case nil: tls = !loopback
            case "disable": tls = false
            case "require", "verify-full": tls = true
            case let other?: throw invalid("sslmode '\(other)' is not one of disable, require, verify-full")
            }
            endpoint = .tcp(host: host.trimmingCharacters(in: CharacterSet(charactersIn: "[]")), port: port, tls: tls)
        }
        self.user = user
        self.password = parts.password ?? environment["PGPASSWORD"]
        self.database = database
    }

    /// The URL without its password, for logs and messages.
    public var description: String {
        switch endpoint {
        case .tcp(let host, let port, let tls):
            return "postgres://\(user)@\(host):\(port)/\(database)\(tls ? "" : "?sslmode=disable")"
        case .unixSocket(let path):
            return "postgres://\(user)@/\(database)?socket=\(path)"
        }
    }

    /// postgres-nio's configuration for this location.
    public func configuration() throws -> PostgresConnection.Configuration {
        switch endpoint {
        case .unixSocket(let path):
            return .init(unixSocketPath: path, username: user, password: password, database: database)
        case .tcp(let host, let port, let tls):
            return .init(
                host: host, port: port, username: user, password: password, database: database,
                tls: tls ? .require(try .init(configuration: .makeClientConfiguration())) : .disable)
        }
    }

    /// `url` with any password replaced by `***`.
    static func redacted(_ url: String) -> String {
        guard var parts = URLComponents(string: url), parts.password != nil else { return url }
        parts.password = "***"
        return parts.string ?? url
    }
}
