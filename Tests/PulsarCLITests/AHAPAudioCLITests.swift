import Foundation
import PulsarAudio
import PulsarTestSupport
import Testing

/// `pulsar convert … --with-audio` and `pulsar convert X.ahap -o FOLDER/`: AHAP with its sound,
/// both ways. The sound is checked by decoding it (libsndfile) against an independent render.
@Suite("AHAP with audio")
struct AHAPAudioCLITests {
    static let pattern = #"{"continuousPattern":{"amplitude":[{"time":0,"value":0.3},{"time":400,"value":0.9},{"time":800,"value":0.2}]},"discretePattern":[{"time":150,"amplitude":0.8,"frequency":0.6}]}"#

    /// A bundle folder with one preset whose audio (a stereo WAV made by render) sits at
    /// `offset` ms and `volume`.
    static func bundle(in dir: TempDir, offset: Double, volume: Double) throws -> (folder: String, audio: String) {
        let pattern = try dir.write(Self.pattern, to: "p.json")
        let folder = dir.file("b")
        try FileManager.default.createDirectory(atPath: folder + "/haptics", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: folder + "/audio", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: pattern, toPath: folder + "/haptics/p.json")
        let audio = folder + "/audio/s.wav"
        #expect(try CLI.run(["render", pattern, "--layout", "H,H", "--format", "s16", "-o", audio, "--quiet"]).status == 0)
        let manifest = #"{"schema":"pulsar.bundle/1","id":"dev.test.ahap","name":"t","presets":[{"id":"p","name":"P","haptics":"haptics/p.json","audio":{"src":"audio/s.wav","volume":\#(volume),"offset":\#(offset)}}]}"#
        try manifest.write(toFile: folder + "/manifest.json", atomically: true, encoding: .utf8)
        return (folder, audio)
    }

    static func json(_ path: String) throws -> [String: Any] {
        try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as! [String: Any]
    }

    @Test("A preset with its audio at +250 ms, volume 0.5: the AHAP's AudioCustom event at 0.25 s, 0.5, naming the WAV beside it, the sound itself; back into a folder that keeps it")
    func bothWays() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let (folder, audio) = try Self.bundle(in: dir, offset: 250, volume: 0.5)
        let ahap = dir.file("out/v.ahap")
        try FileManager.default.createDirectory(atPath: dir.file("out"), withIntermediateDirectories: true)
        let r = try CLI.run(["convert", folder, "-o", ahap, "--with-audio"])
        #expect(r.status == 0, "\(r)")
        let doc = try Self.json(ahap)
        let events = (doc["Pattern"] as! [[String: Any]]).compactMap { $0["Event"] as? [String: Any] }
        let custom = try #require(events.first { $0["EventType"] as? String == "AudioCustom" })
        #expect(custom["Time"] as? Double == 0.25 && custom["EventWaveformPath"] as? String == "v.wav")
        let volume = (custom["EventParameters"] as? [[String: Any]])?.first { $0["ParameterID"] as? String == "AudioVolume" }?["ParameterValue"] as? Double
        #expect(volume == 0.5)
        #expect(events.contains { $0["EventType"] as? String == "HapticTransient" })
        // The WAV is the preset's sound, sample for sample (16-bit in, 16-bit out, one rate).
        let written = try AudioFileContents(contentsOf: dir.file("out/v.wav")), original = try AudioFileContents(contentsOf: audio)
        #expect(written.channels == 2 && written.frameCount == original.frameCount)
        #expect(written.samples == original.samples)
        // Back: the folder's preset has the sound at 250 ms and 0.5, and renders like the original.
        let back = dir.file("back")
        let b = try CLI.run(["convert", ahap, "-o", back + "/"])
        #expect(b.status == 0 && !b.stderr.contains("ignored"), "\(b)")
        let manifest = try Self.json(back + "/manifest.json")
        let preset = (manifest["presets"] as! [[String: Any]])[0]
        let a = preset["audio"] as? [String: Any]
        #expect(a?["offset"] as? Double == 250 && a?["volume"] as? Double == 0.5 && a?["src"] as? String == "audio/v.wav")
        #expect(try CLI.run(["info", back]).status == 0)
        for (name, input) in [("o", folder), ("r", back)] {
            #expect(try CLI.run(["render", input, "--layout", "stereo+haptic", "-o", dir.file("\(name).wav"), "--quiet"]).status == 0)
        }
        let o = try AudioFileContents(contentsOf: dir.file("o.wav")), rt = try AudioFileContents(contentsOf: dir.file("r.wav"))
        #expect(o.frameCount == rt.frameCount)
        let worst = zip(o.samples, rt.samples).map { abs($0 - $1) }.max() ?? 1
        #expect(worst < 1e-3, "round trip within 1e-3: \(worst)")
    }

    @Test("A negative offset trims the WAV's start; a preset without audio, a non-empty folder, a path out of the AHAP's folder, a missing sound: one line, an exit code, nothing written")
    func edges() throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let (folder, audio) = try Self.bundle(in: dir, offset: -100, volume: 1)
        #expect(try CLI.run(["convert", folder, "-o", dir.file("n.ahap"), "--with-audio", "--quiet"]).status == 0)
        let trimmed = try AudioFileContents(contentsOf: dir.file("n.wav")), original = try AudioFileContents(contentsOf: audio)
        #expect(trimmed.frameCount == original.frameCount - 4800)
        #expect(Array(trimmed.samples.prefix(200)) == Array(original.samples[9600..<9800]))
        let pattern = try dir.write(Self.pattern, to: "q.json")
        let noAudio = dir.file("na")
        try FileManager.default.createDirectory(atPath: noAudio + "/haptics", withIntermediateDirectories: true)
        try FileManager.default.copyItem(atPath: pattern, toPath: noAudio + "/haptics/p.json")
        try #"{"schema":"pulsar.bundle/1","id":"dev.test.na","name":"t","presets":[{"id":"p","name":"P","haptics":"haptics/p.json"}]}"#
            .write(toFile: noAudio + "/manifest.json", atomically: true, encoding: .utf8)
        let none = try CLI.run(["convert", noAudio, "-o", dir.file("x.ahap"), "--with-audio", "--quiet"])
        #expect(none.status == 65, "\(none)")
        #expect(none.stderrLines.count == 1 && none.stderr.contains("no-audio"), "\(none.stderr)")
        #expect(!FileManager.default.fileExists(atPath: dir.file("x.ahap")) && !FileManager.default.fileExists(atPath: dir.file("x.wav")))
        let busy = dir.file("busy")
        try FileManager.default.createDirectory(atPath: busy, withIntermediateDirectories: true)
        try "x".write(toFile: busy + "/f", atomically: true, encoding: .utf8)
        let full = try CLI.run(["convert", dir.file("n.ahap"), "-o", busy + "/"])
        #expect(full.status == 74 && full.stderrLines.count == 1, "\(full)")
        let outside = try dir.write(#"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"../s.wav"}},{"Event":{"Time":0.1,"EventType":"HapticTransient","EventParameters":[]}}]}"#, to: "o.ahap")
        let unsafe = try CLI.run(["convert", outside, "-o", dir.file("u") + "/"])
        #expect(unsafe.status == 65 && unsafe.stderr.contains("unsafe-path"), "\(unsafe)")
        let missing = try dir.write(#"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"AudioCustom","EventWaveformPath":"gone.wav"}},{"Event":{"Time":0.1,"EventType":"HapticTransient","EventParameters":[]}}]}"#, to: "m.ahap")
        let gone = try CLI.run(["convert", missing, "-o", dir.file("g") + "/"])
        #expect(gone.status == 66 && gone.stderrLines.count == 1, "\(gone)")
        for name in ["u", "g"] { #expect(!FileManager.default.fileExists(atPath: dir.file(name))) }
    }
}
