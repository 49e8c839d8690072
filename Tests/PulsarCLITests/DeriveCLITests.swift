import Foundation
import PulsarAudio
import PulsarBundle
import PulsarCore
import PulsarTestSupport
import Testing

/// `pulsar derive`, `render --haptics-from-audio`, `pack --derive` and `--derive`: haptics from
/// audio through the command line, on sound written by the tests with known onset times.
@Suite("pulsar derive")
struct DeriveCLITests {
    /// A drum track: kicks (a sine swept 150 → 50 Hz, 150 ms decay) and snares (noise, 60 ms
    /// decay) at known times 150–400 ms apart, over a sustained 110 Hz pad and noise.
    struct Drums {
        var samples: [Float]
        var onsets: [Double]
        var rate: Int

        init(seconds: Double = 10, rate: Int = 48_000, seed: UInt64 = 7) {
            self.rate = rate
            var state = seed
            func random() -> Double {
                state = state &* 6364136223846793005 &+ 1442695040888963407
                return Double(state >> 11) / Double(1 << 53)
            }
            let count = Int(seconds * Double(rate))
            samples = (0..<count).map { i in
                Float(0.02 * sin(2 * .pi * 110 * Double(i) / Double(rate)) + 0.004 * (random() - 0.5))
            }
            onsets = []
            var t = 0.3
            var kick = true
            while t < seconds - 0.5 {
                onsets.append(t * 1000)
                let start = Int(t * Double(rate))
                let level = 0.35 + 0.5 * random()
                var phase = 0.0
                for n in 0..<Int(0.4 * Double(rate)) where start + n < count {
                    let s = Double(n) / Double(rate)
                    let v: Double
                    if kick {
                        phase += 2 * .pi * (50 + 100 * exp(-s / 0.04)) / Double(rate)
                        v = sin(phase) * exp(-s / 0.15)
                    } else {
                        v = (2 * random() - 1) * exp(-s / 0.06)
                    }
                    samples[start + n] += Float(level * v)
                }
                t += 0.15 + 0.25 * random()
                kick = random() < 0.55
            }
        }

        func write(to path: String, channels: Int = 1, rate: Int? = nil) throws {
            let interleaved = samples.flatMap { Array(repeating: $0, count: channels) }
            _ = try WAVExporter().export(interleaved, to: path, sampleRate: SampleRate(rate ?? self.rate)!, channels: channels)
        }
    }

    /// Precision, recall, F1 and the median error (ms) of `found` against `truth`, one to one
    /// within ±`window` ms (greedy, nearest first).
    static func score(found: [Double], truth: [Double], window: Double = 10) -> (p: Double, r: Double, f1: Double, median: Double) {
        var used = Set<Int>()
        var errors: [Double] = []
        for t in truth {
            let best = found.indices.filter { !used.contains($0) && abs(found[$0] - t) <= window }.min { abs(found[$0] - t) < abs(found[$1] - t) }
            if let best {
                used.insert(best)
                errors.append(found[best] - t)
            }
        }
        let p = Double(errors.count) / Double(max(found.count, 1)), r = Double(errors.count) / Double(max(truth.count, 1))
        let sorted = errors.sorted()
        return (p, r, p + r == 0 ? 0 : 2 * p * r / (p + r), sorted.isEmpty ? .nan : sorted[sorted.count / 2])
    }

    static func load(_ path: String) throws -> PatternData {
        try PatternLoader(timeUnit: .milliseconds).load(contentsOf: path).pattern
    }

    @Test("derive drums.wav -o d.json: transients on the drums (F1 >= 0.95 within ±10 ms); the pattern validates, renders, converts to AHAP and back, and loads in view")
    func drums() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let drums = Drums()
        try drums.write(to: dir.file("drums.wav"))
        let r = try CLI.run(["derive", dir.file("drums.wav"), "-o", dir.file("d.json")])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.contains("wrote \(dir.file("d.json")): Pulsar JSON"))
        let pattern = try Self.load(dir.file("d.json"))
        let s = Self.score(found: pattern.discretePattern.map(\.time), truth: drums.onsets)
        print("note: derive CLI on \(drums.onsets.count) drums at 48 kHz: precision \(s.p), recall \(s.r), F1 \(s.f1), median error \(s.median) ms")
        #expect(s.f1 >= 0.95)
        #expect(abs(s.median) < 3)
        // At most 100 breakpoints a second per curve.
        #expect(pattern.continuousPattern.amplitude.count <= 100 * 10 + 1)
        let info = try CLI.run(["info", dir.file("d.json")])
        #expect(info.status == 0 && info.stdout.contains("warnings:    0"), "\(info)")
        let render = try CLI.run(["render", dir.file("d.json"), "-o", dir.file("d.wav"), "--quiet"])
        #expect(render.status == 0, "\(render)")
        #expect(try AudioFileContents(contentsOf: dir.file("d.wav")).samples.contains { abs($0) > 0.1 })
        #expect(try CLI.run(["convert", dir.file("d.json"), "-o", dir.file("d.ahap"), "--quiet"]).status == 0)
        #expect(try CLI.run(["derive", dir.file("drums.wav"), "-o", dir.file("direct.ahap"), "--quiet"]).status == 0)
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("d.ahap"))) == Data(contentsOf: URL(fileURLWithPath: dir.file("direct.ahap"))),
                "derive to .ahap writes what convert makes of its .json")
        #expect(try CLI.run(["convert", dir.file("d.ahap"), "-o", dir.file("back.json"), "--quiet"]).status == 0)
        let back = try Self.load(dir.file("back.json"))
        #expect(back.discretePattern.count == pattern.discretePattern.count)
        for (a, b) in zip(back.discretePattern, pattern.discretePattern) {
            #expect(abs(a.time - b.time) <= 1e-3 && abs(a.amplitude - b.amplitude) <= 1e-3 && abs(a.frequency - b.frequency) <= 1e-3)
        }
        let view = try CLI.run(["view", dir.file("d.json"), "--device", "sim", "--screenshot", dir.file("v.png"), "--at", "1000"],
                               environment: ViewCLITests.offscreen)
        #expect(view.status == 0, "\(view)")
        #expect(dir.exists(dir.file("v.png")))
    }

    @Test("--method android writes HapticGenerator's channel alone; render --haptics-from-audio android puts the same samples in H beside the audio")
    func android() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let drums = Drums(seconds: 3)
        try drums.write(to: dir.file("drums.wav"), channels: 2)
        let d = try CLI.run(["derive", dir.file("drums.wav"), "--method", "android", "-o", dir.file("h.wav")])
        #expect(d.status == 0, "\(d)")
        let h = try AudioFileContents(contentsOf: dir.file("h.wav"))
        #expect(h.channels == 1 && h.sampleRate == 48_000 && h.frameCount == drums.samples.count)
        #expect(h.samples.allSatisfy { abs($0) <= 1 } && h.samples.contains { abs($0) > 0.3 }, "a drum track makes a strong haptic channel")
        let r = try CLI.run(["render", dir.file("drums.wav"), "--haptics-from-audio", "android", "--layout", "stereo+haptic", "-o", dir.file("a.wav")])
        #expect(r.status == 0, "\(r)")
        let a = try AudioFileContents(contentsOf: dir.file("a.wav"))
        #expect(a.channels == 3 && a.frameCount == drums.samples.count)
        let n = min(a.frameCount, drums.samples.count)
        let left: [Float] = (0..<n).map { a.samples[3 * $0] }, right: [Float] = (0..<n).map { a.samples[3 * $0 + 1] }
        let haptic: [Float] = (0..<n).map { a.samples[3 * $0 + 2] }
        #expect(left == Array(drums.samples[0..<n]) && right == left, "L and R are the audio")
        #expect(haptic == Array(h.samples[0..<n]), "H is derive's channel, sample for sample")
        // --haptics-from-audio envelope: the pattern derive makes, rendered in H.
        let e = try CLI.run(["render", dir.file("drums.wav"), "--haptics-from-audio", "envelope", "--layout", "haptic", "-o", dir.file("e.wav"), "--quiet"])
        #expect(e.status == 0, "\(e)")
        #expect(try CLI.run(["derive", dir.file("drums.wav"), "-o", dir.file("e.json"), "--quiet"]).status == 0)
        #expect(try CLI.run(["render", dir.file("e.json"), "--layout", "haptic", "-o", dir.file("e2.wav"), "--quiet"]).status == 0)
        let e1 = try AudioFileContents(contentsOf: dir.file("e.wav")), e2 = try AudioFileContents(contentsOf: dir.file("e2.wav"))
        let m = min(e1.frameCount, e2.frameCount)
        #expect(m > 0 && Array(e1.samples[0..<m]) == Array(e2.samples[0..<m]))
    }

    @Test("silence: an empty pattern and a warning, exit 0; mono, 8 channels and 192 kHz are read")
    func silenceAndShapes() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        _ = try WAVExporter().export([Float](repeating: 0, count: 48_000), to: dir.file("quiet.wav"), sampleRate: SampleRate(48_000)!, channels: 1)
        let r = try CLI.run(["derive", dir.file("quiet.wav"), "-o", dir.file("q.json")])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.contains("[silence]"), "\(r)")
        // Written, though no player takes an empty pattern (the loader refuses it: nothing to play).
        let empty = try JSONDecoder().decode(PatternData.self, from: Data(contentsOf: URL(fileURLWithPath: dir.file("q.json"))))
        #expect(empty.isEmpty)
        let drums = Drums(seconds: 3)
        for (channels, rate) in [(1, 48_000), (8, 48_000), (2, 192_000)] {
            let name = "d\(channels)-\(rate).wav"
            try drums.write(to: dir.file(name), channels: channels, rate: rate)
            let d = try CLI.run(["derive", dir.file(name), "-o", dir.file(name + ".json"), "--quiet"])
            #expect(d.status == 0, "\(channels) channels at \(rate) Hz: \(d)")
            let found = try Self.load(dir.file(name + ".json")).discretePattern.map(\.time)
            // The samples are written at the other rate: every onset lands at t · 48000 / rate.
            let truth = drums.onsets.map { $0 * 48_000 / Double(rate) }
            #expect(Self.score(found: found, truth: truth).f1 >= 0.9, "\(channels) channels at \(rate) Hz")
        }
    }

    @Test("bad input: a clear one-line error, its exit code, and nothing written", arguments: [
        (["--resolution", "0"], "good", 64, "bad-resolution"),
        (["--resolution", "nan"], "good", 64, "--resolution"),
        (["--gain", "3"], "good", 64, "bad-gain"),
        (["--gain", "-30"], "good", 64, "bad-gain"),
        (["--threshold", "2"], "good", 64, "bad-threshold"),
        (["--band", "500:100"], "good", 64, "--band"),
        (["--from", "5000"], "good", 64, "bad-part"),
        (["--method", "magic"], "good", 64, "--method"),
        (["--resonance", "150"], "good", 64, "android"),
        ([], "empty", 65, "unreadable-audio"),
        ([], "garbage", 65, "unreadable-audio"),
        ([], "missing", 66, "missing-audio"),
    ] as [([String], String, Int32, String)])
    func badInput(options: [String], input: String, status: Int32, words: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        try Drums(seconds: 1).write(to: dir.file("good.wav"))
        try Data().write(to: URL(fileURLWithPath: dir.file("empty.wav")))
        try Data((0..<4096).map { UInt8(truncatingIfNeeded: $0 &* 131 &+ 7) }).write(to: URL(fileURLWithPath: dir.file("garbage.wav")))
        let before = Set(dir.contents())
        let r = try CLI.run(["derive", dir.file(input + ".wav"), "-o", dir.file("out.json")] + options)
        #expect(r.status == status, "\(r)")
        #expect(r.stderrLines.count == 1 && r.stderr.contains(words), "\(r)")
        #expect(Set(dir.contents()) == before, "nothing written")
    }

    @Test("the output's kind must fit the method")
    func outputKinds() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        try Drums(seconds: 1).write(to: dir.file("good.wav"))
        for (args, fragment) in [(["-o", dir.file("x.wav")], "envelope method writes a pattern"),
                                 (["-o", dir.file("x.json"), "--method", "android"], "android method writes a haptic channel"),
                                 (["-o", dir.file("x.json"), "--format", "s16"], "--format")] {
            let r = try CLI.run(["derive", dir.file("good.wav")] + args)
            #expect(r.status == 64 && r.stderr.contains(fragment), "\(r)")
        }
        #expect(Set(dir.contents()) == ["good.wav"])
    }

    /// A bundle folder of audio alone: `hit` (the drums, 250 ms after the pattern's start) and
    /// `late` (the drums with their first 500 ms trimmed), and `hush` (silence).
    static func audioFolder(_ dir: TempDir) throws -> (folder: String, drums: Drums) {
        let folder = try dir.directory("af")
        try FileManager.default.createDirectory(atPath: folder + "/audio", withIntermediateDirectories: true)
        let drums = Drums(seconds: 4)
        try drums.write(to: folder + "/audio/drums.wav")
        _ = try WAVExporter().export([Float](repeating: 0, count: 4_800), to: folder + "/audio/hush.wav", sampleRate: SampleRate(48_000)!, channels: 1)
        _ = try dir.write("""
        {"schema": "pulsar.bundle/1", "id": "com.example.audioonly", "name": "Audio alone", "presets": [
          {"id": "hit", "name": "Hit", "audio": {"src": "audio/drums.wav", "offset": 250}},
          {"id": "late", "name": "Late", "audio": {"src": "audio/drums.wav", "offset": -500}},
          {"id": "hush", "name": "Hush", "audio": {"src": "audio/hush.wav"}}
        ]}
        """, to: "af/manifest.json")
        return (folder, drums)
    }

    @Test("pack --derive: a playable bundle from audio alone, the derivation in its manifest, transients on the preset's timeline")
    func packDerive() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let (folder, drums) = try Self.audioFolder(dir)
        let before = try FileManager.default.subpathsOfDirectory(atPath: folder).sorted()
        let r = try CLI.run(["pack", folder, "--derive", "-o", dir.file("d.pulsar")])
        #expect(r.status == 0, "\(r)")
        #expect(r.stderr.contains("[silence]") && r.stderr.contains(#"preset "hush" has audio and no haptics"#), "silence stays audio alone: \(r)")
        #expect(try FileManager.default.subpathsOfDirectory(atPath: folder).sorted() == before, "the folder is not changed")
        // The manifest in the archive names the derived files and how they were made.
        let bundle = try PresetBundle.open(dir.file("d.pulsar"), strict: true)
        let derived = try #require(bundle.preset(id: "hit")?.derived)
        #expect(bundle.manifest.presets.map(\.haptics) == ["haptics/hit.derived.json", "haptics/late.derived.json", nil])
        #expect(derived.method == "envelope" && derived.from == "audio/drums.wav")
        #expect(derived.settings?.contains(#""resolution": 100"#) == true, "\(derived.settings ?? "")")
        for id in ["hit", "late"] {
            #expect(try CLI.run(["convert", dir.file("d.pulsar"), "--preset", id, "-o", dir.file("\(id).json"), "--quiet"]).status == 0)
        }
        let hitTimes = try Self.load(dir.file("hit.json")).discretePattern.map(\.time)
        #expect(Self.score(found: hitTimes, truth: drums.onsets.map { $0 + 250 }).f1 >= 0.95, "the audio plays 250 ms in: so do its transients")
        let lateTimes = try Self.load(dir.file("late.json")).discretePattern.map(\.time)
        #expect(Self.score(found: lateTimes, truth: drums.onsets.filter { $0 > 510 }.map { $0 - 500 }).f1 >= 0.95)
        #expect(lateTimes.allSatisfy { $0 >= 0 })
        // It renders, and its haptics are what render --derive makes of the folder on the fly.
        #expect(try CLI.run(["render", dir.file("d.pulsar"), "--preset", "hit", "-o", dir.file("packed.wav"), "--quiet"]).status == 0)
        let live = try CLI.run(["render", folder, "--preset", "hit", "--derive", "-o", dir.file("live.wav")])
        #expect(live.status == 0 && live.stderr.contains("derived the haptics of preset hit"), "\(live)")
        #expect(try AudioFileContents(contentsOf: dir.file("packed.wav")).samples == AudioFileContents(contentsOf: dir.file("live.wav")).samples)
        // Without --derive the haptics are silent, and a warning says how to derive them.
        let silent = try CLI.run(["render", folder, "--preset", "hit", "--layout", "haptic", "-o", dir.file("silent.wav")])
        #expect(silent.status == 0 && silent.stderr.contains("[no-haptics]"), "\(silent)")
        #expect(try AudioFileContents(contentsOf: dir.file("silent.wav")).samples.allSatisfy { $0 == 0 })
    }

    @Test("play --derive on the simulated device: its recording equals render --replay of its log, which derives again")
    func playDeriveReplay() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let (folder, _) = try Self.audioFolder(dir)
        let r = try CLI.run(["play", folder, "--preset", "hit", "--derive", "--duration", "1500",
                             "--device", "sim:record=\(dir.file("r.wav"))", "--log", dir.file("l.jsonl"), "--quiet"])
        #expect(r.status == 0, "\(r)")
        #expect(try String(contentsOfFile: dir.file("l.jsonl"), encoding: .utf8).contains(#""deriveHaptics": true"#))
        try ReplayCLITests.expectRecordingEqualsReplay(in: dir, atLeast: 48_000)
        let recorded = try AudioFileContents(contentsOf: dir.file("r.wav"))
        #expect(recorded.samples.contains { abs($0) > 0.1 })
    }

    /// The corpus's `verified` preset: a real 3 s MP3 and the haptic pattern a designer authored
    /// against it, every time of which lies on a grid of 1024 samples at 44.1 kHz (23.2 ms).
    static let corpusBundle = "bundles/demo.pulsar"
    static let designStep = 1024.0 / 44.1

    @Test("the corpus's MP3: the derived amplitude follows the sound's level in its band, second by second, within 0.5 dB of the test's own filters",
          .enabled(if: SharedCorpus.available(corpusBundle), "needs ../shared/corpus/bundles/demo.pulsar"))
    func followsTheMP3sLevel() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try CLI.run(["derive", try SharedCorpus.path(Self.corpusBundle), "--preset", "verified", "-o", dir.file("v.json"), "--quiet"])
        #expect(r.status == 0, "\(r)")
        let curve = try Self.load(dir.file("v.json")).continuousPattern.amplitude
        let audio = try AudioFileContents(contentsOf: try SharedCorpus.path("bundles/demo-unpacked/audio/sample-3s.mp3"))
        let rate = Double(audio.sampleRate)
        let mono = (0..<audio.frameCount).map { i in (0..<audio.channels).reduce(0.0) { $0 + Double(audio.samples[i * audio.channels + $1]) } / Double(audio.channels) }
        // docs/derive.md §1 with the default profile's band, 60–500 Hz: a 2nd-order Butterworth
        // high-pass and a 4th-order low-pass (Q 0.5412 and 1.3066), the RBJ cookbook's formulas
        // written here again, run in 64-bit, direct form I.
        func section(_ x: [Double], hertz: Double, q: Double, highPass: Bool) -> [Double] {
            let w = 2 * Double.pi * hertz / rate, alpha = sin(w) / (2 * q), c = cos(w), a0 = 1 + alpha
            let b0 = (highPass ? (1 + c) / 2 : (1 - c) / 2) / a0, b1 = (highPass ? -(1 + c) : 1 - c) / a0, b2 = b0
            let a1 = -2 * c / a0, a2 = (1 - alpha) / a0
            var y = [Double](repeating: 0, count: x.count), x1 = 0.0, x2 = 0.0, y1 = 0.0, y2 = 0.0
            for n in x.indices {
                y[n] = b0 * x[n] + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
                (x2, x1, y2, y1) = (x1, x[n], y1, y[n])
            }
            return y
        }
        let band = section(section(section(mono, hertz: 60, q: 0.5.squareRoot(), highPass: true), hertz: 500, q: 0.5412, highPass: false),
                           hertz: 500, q: 1.3066, highPass: false)
        // The curve read every millisecond, turned back into energy: a ∝ RMS^0.5, so a⁴ ∝ energy.
        func value(at t: Double) -> Double {
            guard let next = curve.firstIndex(where: { $0.time > t }) else { return curve.last?.value ?? 0 }
            guard next > 0 else { return curve[0].value }
            let p = curve[next - 1], q = curve[next]
            return p.value + (q.value - p.value) * (t - p.time) / (q.time - p.time)
        }
        var measured: [Double] = [], derived: [Double] = []
        for second in 0..<3 {
            let samples = band[Int(Double(second) * rate)..<Int(Double(second + 1) * rate)]
            measured.append(10 * log10(samples.reduce(0) { $0 + $1 * $1 } / Double(samples.count)))
            let values = (0..<1000).map { pow(value(at: Double(second * 1000 + $0)), 4) }
            derived.append(10 * log10(values.reduce(0, +) / 1000))
        }
        let measuredSteps = (1..<3).map { measured[$0] - measured[0] }, derivedSteps = (1..<3).map { derived[$0] - derived[0] }
        print("note: corpus MP3, level of seconds 2 and 3 against the first: in the band \(measuredSteps) dB, from the derived curve \(derivedSteps) dB")
        #expect(measuredSteps[1] < -10, "the sound's last second is much quieter: the check can tell")
        for (m, d) in zip(measuredSteps, derivedSteps) { #expect(abs(m - d) <= 0.5, "band \(m) dB, derived \(d) dB") }
    }

    @Test("the corpus's MP3: of the transients its designer authored, at least 80 % have a derived one within two of the design's 23.2 ms steps",
          .enabled(if: SharedCorpus.available(corpusBundle), "needs ../shared/corpus/bundles/demo.pulsar"))
    func againstTheDesigner() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let designed = try Self.load(try SharedCorpus.path("bundles/demo-unpacked/haptics/verified.json")).discretePattern.map(\.time)
        #expect(designed.count == 13 && designed.allSatisfy { abs(($0 / Self.designStep).rounded() * Self.designStep - $0) < 1 },
                "the design's 13 transients are on its grid: \(designed)")
        let r = try CLI.run(["derive", try SharedCorpus.path(Self.corpusBundle), "--preset", "verified", "-o", dir.file("v.json"), "--quiet"])
        #expect(r.status == 0, "\(r)")
        let derived = try Self.load(dir.file("v.json")).discretePattern.map(\.time)
        let s = Self.score(found: derived, truth: designed, window: 2 * Self.designStep)
        print("note: corpus MP3: \(derived.count) derived transients, the designer's \(designed.count): recall \(s.r), precision \(s.p), median offset (derived − designed) \(s.median) ms")
        #expect(s.r >= 0.8)
    }
}
