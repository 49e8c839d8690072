import Foundation
import Testing

/// `pulsar lint`: each rule found where it should be, with its figure, and quiet on a design made
/// for the device.
struct LintCLITests {
    /// A Pulsar JSON pattern: a steady carrier (amplitude 0.5, frequency 0.5) for `ms`, and
    /// transients at `transients` ms (amplitude 1, frequency 0.5).
    static func pattern(ms: Double, transients: [Double]) -> String {
        let points = transients.map { #"{"time":\#($0),"amplitude":1,"frequency":0.5}"# }.joined(separator: ",")
        return #"{"continuousPattern":{"amplitude":[{"time":0,"value":0.5},{"time":\#(ms),"value":0.5}],"#
            + #""frequency":[{"time":0,"value":0.5},{"time":\#(ms),"value":0.5}]},"discretePattern":[\#(points)]}"#
    }

    /// A `.haptic` clip, silent but for one emphasis of frequency `f` at 0.2 s.
    static func clip(emphasisFrequency f: Double) -> String {
        #"{"version":{"major":1,"minor":0,"patch":0},"signals":{"continuous":{"envelopes":{"amplitude":["#
            + #"{"time":0,"amplitude":0},{"time":0.2,"amplitude":0,"emphasis":{"amplitude":1,"frequency":\#(f)}},{"time":0.5,"amplitude":0}],"#
            + #""frequency":[{"time":0,"frequency":0.5}]}}}}"#
    }

    @Test("A design made for an LRA (a steady carrier, transients 100 ms apart) is clean, even with --strict")
    func quietOnAFittingDesign() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let file = try dir.write(Self.pattern(ms: 1_000, transients: [100, 200, 300, 400]), to: "fit.json")
        let r = try CLI.run(["lint", file, "--profile", "lra", "--strict"])
        #expect(r.status == 0 && r.stdout.hasSuffix("on lra:170: 0 findings\n"), "\(r)")
    }

    @Test("Transients 8 ms apart on wideband merge: the first's burst is 3 cycles of 180 Hz, 16.7 ms; --strict exits 1 in one line")
    func transientsMerge() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let file = try dir.write(Self.pattern(ms: 500, transients: [100, 108, 300]), to: "close.json")
        let r = try CLI.run(["lint", file])
        #expect(r.status == 0, "\(r)")
        let lines = r.stdout.split(separator: "\n").map(String.init)
        #expect(lines.count == 2 && lines[0].contains("100.0–108.0 ms: transients-merge: transients 8.0 ms apart")
                && lines[0].contains("16.7 ms"), "\(lines)")
        let strict = try CLI.run(["lint", file, "--strict"])
        #expect(strict.status == 1 && strict.stderrLines == ["pulsar lint: 1 finding on wideband (--strict)"], "\(strict)")
        let json = try JSONSerialization.jsonObject(with: Data(try CLI.run(["lint", file, "--json"]).stdout.utf8)) as? [String: Any]
        let findings = try #require(json?["findings"] as? [[String: Any]])
        #expect(findings.count == 1 && findings[0]["rule"] as? String == "transients-merge")
        #expect(abs((findings[0]["value"] as? Double ?? 0) - 8) < 1e-9 && abs((findings[0]["bound"] as? Double ?? 0) - 3000.0 / 180) < 1e-9)
    }

    @Test("A square emphasis through Meta's console config: its harmonics put energy above 1 kHz and outside the band; a sine one only clicks where it is cut off")
    func squareBursts() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let square = try dir.write(Self.clip(emphasisFrequency: 1), to: "square.haptic")
        let r = try CLI.run(["lint", square, "--actuator", "meta-console", "--json"])
        #expect(r.status == 0, "\(r)")
        let json = try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any]
        let findings = try #require(json?["findings"] as? [[String: Any]])
        let rules = findings.map { $0["rule"] as? String ?? "" }
        #expect(rules.contains("energy-above-1khz") && rules.contains("outside-band"), "\(findings)")
        // A 130 Hz square: the odd harmonics from 1 170 Hz on carry 1 − (8/π²)(1 + 1/9 + 1/25 + 1/49)
        // of its power, −13 dB; the burst fills 20 of a window's 50 ms, so a window reads about that.
        let click = try #require(findings.first { $0["rule"] as? String == "energy-above-1khz" })
        let db = try #require(click["value"] as? Double)
        #expect(db > -16 && db < -11, "\(db) dB")
        #expect(try #require(click["fromMs"] as? Double) <= 200 && (try #require(click["toMs"] as? Double)) >= 220)
        // The square's edges are steps of 2 between two samples, over the 20 ms it sounds.
        let step = try #require(findings.first { $0["rule"] as? String == "step" })
        #expect(step["value"] as? Double == 2 && (step["fromMs"] as? Double ?? 0) >= 200 && (step["toMs"] as? Double ?? 0) <= 220, "\(step)")
        // A 55 Hz sine emphasis is in the band and too quiet a click for any window, but it is
        // cut off after 1296 samples (27 ms, no fade): its last sample, sin(2π · frac(1295 · 55 /
        // 48000)), drops to 0 at 227 ms — a step over the 4π · 250 / 48000 a sample allows.
        let sine = try dir.write(Self.clip(emphasisFrequency: 0), to: "sine.haptic")
        let s = try CLI.run(["lint", sine, "--actuator", "meta-console", "--json"])
        let sineFindings = try #require((try JSONSerialization.jsonObject(with: Data(s.stdout.utf8)) as? [String: Any])?["findings"] as? [[String: Any]])
        let cycles = 1295 * 55 / 48_000.0, last = sin(2 * Double.pi * (cycles - cycles.rounded(.down)))
        #expect(sineFindings.count == 1, "\(sineFindings)")
        let cut = try #require(sineFindings.first)
        #expect(cut["rule"] as? String == "step" && abs((cut["fromMs"] as? Double ?? 0) - 227) < 1e-9, "\(cut)")
        #expect(abs((cut["value"] as? Double ?? 0) - last) < 1e-6 && abs((cut["bound"] as? Double ?? 0) - 4 * Double.pi * 250 / 48_000) < 1e-12, "\(cut)")
    }

    @Test("The same square emphasis through the shipped DualSense config (band-limited at 400 Hz: a 160 Hz square is its fundamental alone; risen, faded out, the carrier ramped): clean, and a note of what the limit costs — 8/π² of the power, −0.91 dB")
    func bandLimitedBursts() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let square = try dir.write(Self.clip(emphasisFrequency: 1), to: "square.haptic")
        let r = try CLI.run(["lint", square, "--actuator", "dualsense", "--strict"])
        #expect(r.status == 0, "\(r)")
        let kept = 10 * log10(8 / (Double.pi * Double.pi))
        #expect(r.stdout.contains("note: 1 burst band-limited at 400 Hz: \(String(format: "%.2f", kept)) dB of the power"), "\(r)")
        #expect(r.stdout.hasSuffix("on dualsense: 0 findings\n"), "\(r)")
        let json = try JSONSerialization.jsonObject(with: Data(try CLI.run(["lint", square, "--actuator", "dualsense", "--json"]).stdout.utf8))
            as? [String: Any]
        let limit = try #require(json?["bandLimit"] as? [String: Any])
        #expect(limit["hertz"] as? Double == 400 && limit["bursts"] as? Double == 1)
        #expect(abs((limit["leastKeptDB"] as? Double ?? 0) - kept) < 1e-3, "\(limit)")
        // Meta's own config has no limit: no note.
        #expect(try !CLI.run(["lint", square, "--actuator", "meta-console"]).stdout.contains("note:"))
        // The shaker's sine thumps, at either end: clean. A window that holds only a thump's last
        // 3.5 ms at its very edge is judged by what its Hann weighting leaves (quiet), and the
        // shaker's low edge (25 Hz) lies under a 50 ms window's resolution.
        for f in [0.0, 1.0] {
            let thump = try dir.write(Self.clip(emphasisFrequency: f), to: "thump\(f).haptic")
            let t = try CLI.run(["lint", thump, "--actuator", "bass-shaker", "--strict"])
            #expect(t.status == 0 && t.stdout.hasSuffix("on bass-shaker: 0 findings\n"), "\(t)")
        }
    }

    @Test("Bad input: a missing file, an unknown actuator, an unknown option — one line, the documented code; a JSON pattern through an ACF is linted")
    func refusals() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let json = try dir.write(Self.pattern(ms: 100, transients: []), to: "p.json")
        for (arguments, status) in [(["lint", dir.file("nope.json")], Int32(66)), (["lint", json, "--actuator", "meta-nope"], 64),
                                    (["lint", json, "--bogus"], 64)] {
            let r = try CLI.run(arguments)
            #expect(r.status == status && r.stderrLines.count == 1 && r.stdout.isEmpty, "\(arguments): \(r)")
        }
        // The pattern (0.5 for 100 ms, no transient) through the console config: 20–250 Hz at
        // frequency 0.5, 135 Hz, inside the band, starting on a sine's zero: clean.
        let linted = try CLI.run(["lint", json, "--actuator", "meta-console", "--strict"])
        #expect(linted.status == 0 && linted.stdout.hasSuffix("on meta-console: 0 findings\n"), "\(linted)")
    }
}
