import Foundation
import ServerTestSupport
import Testing

@testable import PTTServer

/// Docs/PROTOCOL.md's metric table (9.5) is a tested copy of what pttd exports: every family, its type, its labels
/// and every value a closed label can take. A new metric, label value or enum case without a row fails here.
@Suite("The documented metrics")
struct MetricsTableTests {
    static let protocolDocument: String = {
        let root = PackagePaths.root
        return (try? String(contentsOf: root.appendingPathComponent("Docs/PROTOCOL.md"), encoding: .utf8)) ?? ""
    }()

    /// What a fresh registry holds: every labelled family is made from its label enum's `allCases` when
    /// ``ServerMetrics`` is made, so this lists each value the code can count (a scrape would show the same).
    static var exported: [String: MetricFamilyShape] {
        MetricsDocument.families(exposition: String(decoding: ServerMetrics().exposition(), as: UTF8.self))
    }

    @Test("the 9.5 table has one row per exported family, with its type, labels and every label value")
    func tableMatchesTheRegistry() throws {
        let table = MetricsDocument.table(in: Self.protocolDocument, section: "### 9.5")
        try #require(!table.isEmpty, "no metric table in PROTOCOL 9.5")
        let exported = Self.exported
        let missing = exported.keys.filter { table[$0] == nil }.sorted().map { "\($0): \(exported[$0]!)" }
        let extra = table.keys.filter { exported[$0] == nil }.sorted()
        let different = exported.keys.sorted().compactMap { name -> String? in
            guard let row = table[name], !exported[name]!.isDocumented(by: row) else { return nil }
            return "\(name): exported \(exported[name]!), documented \(row)"
        }
        #expect(missing.isEmpty, "exported but without a row in PROTOCOL 9.5:\n\(missing.joined(separator: "\n"))")
        #expect(extra.isEmpty, "rows in PROTOCOL 9.5 that pttd does not export: \(extra)")
        #expect(different.isEmpty, "rows that disagree with the code:\n\(different.joined(separator: "\n"))")
    }

    @Test("the relay's table in 8.11 says what 9.5 says of the same metrics")
    func relayTableAgrees() throws {
        let full = MetricsDocument.table(in: Self.protocolDocument, section: "### 9.5")
        let relay = MetricsDocument.table(in: Self.protocolDocument, section: "### 8.11")
        try #require(!relay.isEmpty, "no metric table in PROTOCOL 8.11")
        for (name, row) in relay.sorted(by: { $0.key < $1.key }) {
            #expect(full[name] == row, "\(name): 8.11 says \(row), 9.5 says \(full[name].map { "\($0)" } ?? "nothing")")
        }
    }

    @Test("a running pttd exports no family its registry did not have at start")
    func runningServerExportsTheSameFamilies() async throws {
        try await withTestServer { server in
            let scraped = MetricsDocument.families(exposition: try await server.admin.getText("/metrics"))
            #expect(Set(scraped.keys) == Set(Self.exported.keys))
        }
    }
}
