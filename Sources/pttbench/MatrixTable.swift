#if os(Linux)
import Foundation

/// The reports of one `pttbench matrix`, by run name (`r1-flood-c-10`, `r1-rate-srtp-1000`, `r1-join-tls-1000`…;
/// nil when the run failed), and the table of targets made from them.
struct MatrixResults {
    var audio: [String: BenchReport?] = [:]
    var joins: [String: JoinReport?] = [:]

    /// One target: a figure per repeat, the bar, PASS when every repeat meets it.
    private struct Row {
        var target: String
        var values: [Double?]
        var format: (Double) -> String
        var bar: String
        var meets: (Double) -> Bool
    }

    private func report(_ name: String) -> BenchReport? { audio[name] ?? nil }

    /// The reports a finished matrix left in `directory` (NAME.json), to print its table again.
    static func load(directory: String) -> MatrixResults {
        var results = MatrixResults()
        let names = (try? FileManager.default.contentsOfDirectory(atPath: directory)) ?? []
        for file in names where file.hasSuffix(".json") {
            let name = String(file.dropLast(5))
            let data = FileManager.default.contents(atPath: directory + "/" + file) ?? Data()
            if name.contains("-join-") {
                results.joins[name] = .some(try? JSONDecoder().decode(JoinReport.self, from: data))
            } else {
                results.audio[name] = .some(try? JSONDecoder().decode(BenchReport.self, from: data))
            }
        }
        return results
    }

    func markdown(repeats: Int, sizes: [Int], rateListeners: Int, joinMembers: Int) -> String {
        let runs = Array(1...repeats)
        func percent(_ v: Double) -> String { String(format: "%.0f %%", 100 * v) }
        func ratio(_ v: Double) -> String { String(format: "%.2f×", v) }
        func micro(_ v: Double) -> String { String(format: "%.3f µs", v) }
        func deliveredRatio(_ run: Int, _ security: String, _ n: Int) -> Double? {
            guard let mine = report("r\(run)-flood-\(security)-\(n)"), let c = report("r\(run)-flood-c-\(n)"),
                c.deliveredPerSecond > 0
            else { return nil }
            return mine.deliveredPerSecond / c.deliveredPerSecond
        }
        var rows: [Row] = []
        for n in sizes {
            rows.append(
                Row(
                    target: "flood \(n) listeners: pttd plain / C relay, delivered pkt/s",
                    values: runs.map { deliveredRatio($0, "none", n) }, format: percent, bar: "≥ 90 %",
                    meets: { $0 >= 0.9 }))
            rows.append(
                Row(
                    target: "flood \(n) listeners: pttd SRTP / C relay, delivered pkt/s",
                    values: runs.map { deliveredRatio($0, "srtp", n) }, format: percent, bar: "≥ 80 %",
                    meets: { $0 >= 0.8 }))
        }
        if rateListeners > 0 {
            let n = rateListeners
            rows.append(
                Row(
                    target: "\(n) × 50 pkt/s SRTP: loss",
                    values: runs.map { report("r\($0)-rate-srtp-\(n)")?.lossPercent },
                    format: { String(format: "%.3f %%", $0) },
                    bar: "0", meets: { $0 == 0 }))
            rows.append(
                Row(
                    target: "\(n) × 50 pkt/s SRTP: p99 / C relay p99",
                    values: runs.map { run in
                        guard let mine = report("r\(run)-rate-srtp-\(n)")?.latencyMs["p99"],
                            let c = report("r\(run)-rate-c-\(n)")?.latencyMs["p99"], c > 0
                        else { return nil }
                        return mine / c
                    }, format: ratio, bar: "≤ 1.3×", meets: { $0 <= 1.3 }))
        }
        if sizes.contains(100) {
            rows.append(
                Row(
                    target: "flood 100: pttd plain, utime µs / delivered",
                    values: runs.map { report("r\($0)-flood-none-100")?.serverUserMicrosecondsPerDelivered },
                    format: micro, bar: "≤ 0.3 µs", meets: { $0 <= 0.3 }))
            rows.append(
                Row(
                    target: "flood 100: pttd SRTP, utime µs / delivered",
                    values: runs.map { report("r\($0)-flood-srtp-100")?.serverUserMicrosecondsPerDelivered },
                    format: micro, bar: "≤ 0.8 µs", meets: { $0 <= 0.8 }))
        }
        if rateListeners > 0 {
            rows.append(
                Row(
                    target: "\(rateListeners) SRTP members × 50 pkt/s: max RSS while sending",
                    values: runs.map { report("r\($0)-rate-srtp-\(rateListeners)")?.serverMaxRSSWhileSendingMB },
                    format: { String(format: "%.1f MB", $0) }, bar: "≤ 50 MB", meets: { $0 <= 50 }))
        }
        if joinMembers > 0 {
            func join(_ run: Int) -> JoinReport? { joins["r\(run)-join-tls-\(joinMembers)"] ?? nil }
            rows.append(
                Row(
                    target: "\(joinMembers) members join over TLS: wall seconds",
                    values: runs.map { join($0)?.parallelJoinSeconds }, format: { String(format: "%.2f s", $0) },
                    bar: "≤ 3 s", meets: { $0 <= 3 }))
            rows.append(
                Row(
                    target: "join cost: pttd CPU of joins \(joinMembers - 9)–\(joinMembers) / joins 6–15 (medians)",
                    values: runs.map { join($0)?.cpuRatio }, format: ratio, bar: "≤ 3×", meets: { $0 <= 3 }))
        }
        // SIGTERM: the slowest stop of each repeat's pttd runs (a SIGKILL counts as infinitely slow): the audio
        // runs stop while the talker sends, the join run with every member connected.
        rows.append(
            Row(
                target:
                    "pttd exit after SIGTERM (slowest pttd run of the repeat: audio under load, joins with all connected)",
                values: runs.map { run in
                    let stops =
                        audio.filter { $0.key.hasPrefix("r\(run)-") && !$0.key.contains("-c-") }
                        .compactMap { $0.value?.serverStop }
                        + joins.filter { $0.key.hasPrefix("r\(run)-") }.compactMap { $0.value?.serverStop }
                    guard !stops.isEmpty else { return nil }
                    return stops.map { $0.killed ? Double.infinity : ($0.secondsAfterSIGTERM ?? 0) }.max()
                }, format: { $0.isInfinite ? "killed" : String(format: "%.3f s", $0) }, bar: "≤ 2 s", meets: { $0 <= 2 }
            ))

        var lines = [
            "| target | " + runs.map { "run \($0)" }.joined(separator: " | ") + " | bar | verdict |",
            "|---|" + runs.map { _ in "---|" }.joined() + "---|---|",
        ]
        for row in rows {
            let cells = row.values.map { $0.map(row.format) ?? "n/a" }
            let known = row.values.compactMap { $0 }
            let verdict =
                known.count < row.values.count ? "n/a (run failed)" : (known.allSatisfy(row.meets) ? "PASS" : "MISS")
            lines.append("| \(row.target) | " + cells.joined(separator: " | ") + " | \(row.bar) | \(verdict) |")
        }
        lines.append("")
        lines.append(runTable())
        return lines.joined(separator: "\n")
    }

    /// Every audio run: the raw figures the ratios come from.
    private func runTable() -> String {
        func f(_ value: Double?, _ digits: Int = 1) -> String {
            value.map { String(format: "%.\(digits)f", $0) } ?? "-"
        }
        var lines = [
            "| run | delivered pkt/s | loss % | p50 ms | p99 ms | µs CPU / delivered (utime+stime) | utime µs / delivered | "
                + "max RSS sending MB | VmHWM MB | SIGTERM → exit s | background % |",
            "|---|---|---|---|---|---|---|---|---|---|---|",
        ]
        for name in audio.keys.sorted(by: Self.runOrder) {
            guard let r = audio[name] ?? nil else {
                lines.append("| \(name) | failed | | | | | | | | | |")
                continue
            }
            let stop = r.serverStop.map { $0.killed ? "killed" : f($0.secondsAfterSIGTERM, 3) } ?? "-"
            lines.append(
                "| \(name) | \(f(r.deliveredPerSecond, 0)) | \(f(r.lossPercent, 3)) | \(f(r.latencyMs["p50"], 2)) | "
                    + "\(f(r.latencyMs["p99"], 2)) | \(f(r.serverMicrosecondsPerDelivered, 2)) | \(f(r.serverUserMicrosecondsPerDelivered, 3)) | "
                    + "\(f(r.serverMaxRSSWhileSendingMB)) | \(f(r.serverMaxRSSMB)) | \(stop) | "
                    + "\(f(r.backgroundServerCoreBusyPercent, 0))/\(f(r.backgroundBenchCoreBusyPercent, 0)) |")
        }
        for name in joins.keys.sorted() {
            guard let j = joins[name] ?? nil else {
                lines.append("\n\(name): failed")
                continue
            }
            lines.append("")
            lines.append(
                "\(name): \(f(j.parallelJoinSeconds, 2)) s wall, pttd CPU \(f(j.parallelServerCPUSeconds, 2)) s; "
                    + "sequential medians: joins 6–15 \(f(j.early?.medianServerCPUMicroseconds, 0)) µs CPU, "
                    + "\(f(j.early?.medianSettledMs, 2)) ms settled; joins \(j.late.map { "\($0.first)–\($0.last)" } ?? "-") "
                    + "\(f(j.late?.medianServerCPUMicroseconds, 0)) µs CPU, \(f(j.late?.medianSettledMs, 2)) ms settled "
                    + "(ratio CPU \(f(j.cpuRatio, 2))×, settled \(f(j.settledRatio, 2))×, joined \(f(j.joinedRatio, 2))×); "
                    + "pttd \(j.serverStop?.ending ?? "-")")
        }
        return lines.joined(separator: "\n")
    }

    /// r1 before r2; within a repeat flood before rate, smaller before larger, C before plain before SRTP.
    private static func runOrder(_ a: String, _ b: String) -> Bool {
        func key(_ name: String) -> [Int] {
            let parts = name.split(separator: "-")
            guard parts.count == 4 else { return [Int.max] }
            let repeatIndex = Int(parts[0].dropFirst()) ?? 0
            let mode = parts[1] == "flood" ? 0 : 1
            let relay = ["c": 0, "none": 1, "srtp": 2][String(parts[2])] ?? 3
            return [repeatIndex, mode, Int(parts[3]) ?? 0, relay]
        }
        return key(a).lexicographicallyPrecedes(key(b))
    }
}
#endif
