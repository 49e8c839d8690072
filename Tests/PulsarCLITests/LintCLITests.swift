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

    /// A carrier of amplitude `level` (frequency 0.5) rising over `ramp` ms from 0, held, and
    /// falling over `ramp` ms to 0 at `ms`; transients at `transients` ms.
    static func ramped(ms: Double, ramp: Double, level: Double = 0.5, transients: [Double] = []) -> String {
        let points = transients.map { #"{"time":\#($0),"amplitude":1,"frequency":0.5}"# }.joined(separator: ",")
        return #"{"continuousPattern":{"amplitude":[{"time":0,"value":0},{"time":\#(ramp),"value":\#(level)},"#
            + #"{"time":\#(ms - ramp),"value":\#(level)},{"time":\#(ms),"value":0}],"#
            + #""frequency":[{"time":0,"value":0.5},{"time":\#(ms),"value":0.5}]},"discretePattern":[\#(points)]}"#
    }

    @Test("A design made for an LRA (a carrier ramped in and out over 20 ms, transients 100 ms apart) is clean on the lra profile and on the lra actuator with its limits, even with --strict")
    func quietOnAFittingDesign() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let file = try dir.write(Self.ramped(ms: 1_000, ramp: 20, transients: [100, 200, 300, 400]), to: "fit.json")
        let r = try CLI.run(["lint", file, "--profile", "lra", "--strict"])
        #expect(r.status == 0 && r.stdout.hasSuffix("on lra:170: 0 findings\n"), "\(r)")
        let a = try CLI.run(["lint", file, "--actuator", "lra", "--strict"])
        #expect(a.status == 0 && a.stdout.hasSuffix("on lra: 0 findings\n"), "\(a)")
    }

    @Test("The lra actuator's limits: a step (the model's 8 ms S-curve) faster than its 15 ms rise, transients 18 ms apart (apart on the device, 17.6 ms each, but under 20 ms), a 0.8 carrier held 3 s above RMS 0.5 over 2 s (0.6 is under it); a config's short rise; bursts a config cannot shape")
    func limitRules() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        func findings(_ text: String, _ name: String, _ extra: [String] = ["--actuator", "lra"]) throws -> [[String: Any]] {
            let r = try CLI.run(["lint", try dir.write(text, to: name), "--json"] + extra)
            #expect(r.status == 0, "\(r)")
            return try #require((try JSONSerialization.jsonObject(with: Data(r.stdout.utf8)) as? [String: Any])?["findings"] as? [[String: Any]])
        }
        // A step up at 0 and down at 1 000 ms: each 8 ms on the device, bound 15 ms.
        let steps = try findings(Self.pattern(ms: 1_000, transients: []), "step.json").filter { $0["rule"] as? String == "response" }
        #expect(steps.count == 2 && steps.allSatisfy { $0["value"] as? Double == 8 && $0["bound"] as? Double == 15 }, "\(steps)")
        #expect((steps.first?["message"] as? String)?.contains("rises by 0.50 in 8.0 ms; the device takes 15.0 ms") == true, "\(steps)")
        // Transients 18 ms apart: not merged (each sounds 3 / 170 Hz = 17.6 ms) but closer than 20 ms.
        let close = try findings(Self.ramped(ms: 1_000, ramp: 20, transients: [300, 318]), "close.json")
        #expect(close.map { $0["rule"] as? String } == ["transients-close"] && close.first?["value"] as? Double == 18, "\(close)")
        // RMS of a sine of peak 0.8: 0.8/√2, −4.95 dBFS, over the ceiling of −6.02 dBFS; of 0.6, −7.45 dBFS: under.
        let loud = try findings(Self.ramped(ms: 3_000, ramp: 20, level: 0.8), "loud.json")
        let drive = try #require(loud.first { $0["rule"] as? String == "sustained-drive" }, "\(loud)")
        #expect(abs((drive["value"] as? Double ?? 0) - 20 * log10(0.8 / 2.0.squareRoot())) < 0.05 && abs((drive["bound"] as? Double ?? 0) - 20 * log10(0.5)) < 1e-9,
                "\(drive)")
        #expect(loud.count == 1)
        #expect(try findings(Self.ramped(ms: 3_000, ramp: 20, level: 0.6), "quiet.json").isEmpty)
        // A config whose device rises in 20 ms: wideband's transients at frequency 0.5 (180 Hz, 16.7 ms) are short.
        let slow = try dir.write("{model: 'envelope', continuous: {frequency_min: 60, frequency_max: 300}, limits: {rise_ms: 20}}", to: "slow.acf")
        let short = try findings(Self.ramped(ms: 1_000, ramp: 40, transients: [100, 300, 900]), "short.json", ["--actuator", slow])
        #expect(short.map { $0["rule"] as? String } == ["transient-short", "transient-short"], "\(short)")
        #expect(abs((short.first?["value"] as? Double ?? 0) - 3000.0 / 180) < 1e-9 && short.first?["bound"] as? Double == 20)
        #expect((short.first?["message"] as? String)?.hasPrefix("2 transients, the shortest 16.7 ms,") == true, "\(short)")
        // A config whose bursts it cannot shape: 200 Hz for 3 ms (0.6 of a cycle) at frequency 0,
        // 600 Hz at frequency 1, over half an octave above its 20–250 Hz band (353.6 Hz).
        let odd = try dir.write("{continuous: {gain: 1, emphasis_ducking: 1, frequency_min: 20, frequency_max: 250}, emphasis: {gain: 1, fade_out_percent: 0,"
                                + " frequency_min: {output_frequency: 200, duration_ms: 3, shape: 'sine'}, frequency_max: {output_frequency: 600, duration_ms: 10, shape: 'sine'}}}",
                                to: "odd.acf")
        let thin = try findings(Self.clip(emphasisFrequency: 0), "thin.haptic", ["--actuator", odd]).filter { $0["rule"] as? String == "transient-shape" }
        #expect(thin.count == 1 && abs((thin[0]["value"] as? Double ?? 0) - 0.6) < 1e-9 && thin[0]["bound"] as? Double == 1, "\(thin)")
        #expect((thin.first?["message"] as? String)?.contains("a transient of 0.60 cycles on this device: less than one") == true, "\(thin)")
        let high = try findings(Self.clip(emphasisFrequency: 1), "high.haptic", ["--actuator", odd]).filter { $0["rule"] as? String == "transient-shape" }
        #expect(high.count == 1 && high[0]["value"] as? Double == 600 && abs((high[0]["bound"] as? Double ?? 0) - 250 * 2.0.squareRoot()) < 1e-9, "\(high)")
        // The shipped configs shape every emphasis: at either end, no such finding.
        for name in ["meta-console", "meta-quest", "dualsense", "bass-shaker", "wideband", "lra"] {
            for f in [0.0, 1.0] {
                #expect(try findings(Self.clip(emphasisFrequency: f), "e\(f).haptic", ["--actuator", name]).allSatisfy { $0["rule"] as? String != "transient-shape" })
            }
        }
        // With --profile: no limits, none of these rules.
        #expect(try findings(Self.pattern(ms: 1_000, transients: [300, 318]), "p.json", ["--profile", "lra"]).allSatisfy {
            !["response", "transients-close", "sustained-drive", "transient-short"].contains($0["rule"] as? String ?? "")
        })
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
