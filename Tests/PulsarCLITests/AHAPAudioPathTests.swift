import Foundation
import Testing

/// `pulsar convert X.ahap -o FOLDER/` copies an AudioCustom sound only from inside the AHAP's
/// folder, decided on the real path (links and `..` resolved), and only a sound.
@Suite struct AHAPAudioPathTests {
    /// An AHAP beside `real.wav` (a WAV render), `sub/`, a link to `/etc/passwd`, a link to
    /// `real.wav`, a garbage file and an empty one, naming `path` as its AudioCustom sound.
    static func folder(_ dir: TempDir, path: String) throws -> String {
        let folder = try dir.directory("ahap")
        try FileManager.default.createDirectory(atPath: folder + "/sub", withIntermediateDirectories: true)
        let pattern = try dir.write(#"{"continuousPattern":{"amplitude":[{"time":0,"value":0.5},{"time":200,"value":0.5}],"frequency":[{"time":0,"value":0.5}]}}"#, to: "p.json")
        #expect(try CLI.run(["render", pattern, "--format", "s16", "-o", folder + "/real.wav", "--quiet"]).status == 0)
        try FileManager.default.createSymbolicLink(atPath: folder + "/passwd.wav", withDestinationPath: "/etc/passwd")
        try FileManager.default.createSymbolicLink(atPath: folder + "/alias.wav", withDestinationPath: "real.wav")
        try Data("RIFF garbage, not a sound".utf8).write(to: URL(fileURLWithPath: folder + "/garbage.wav"))
        try Data().write(to: URL(fileURLWithPath: folder + "/empty.wav"))
        let ahap = #"{"Version":1,"Pattern":[{"Event":{"Time":0,"EventType":"HapticTransient"}},{"Event":{"Time":0.1,"EventType":"AudioCustom","EventWaveformPath":"\#(path)"}}]}"#
        return try dir.write(ahap, to: "ahap/x.ahap")
    }

    /// `pulsar convert` of that AHAP into the folder `out/`.
    static func convert(_ dir: TempDir, path: String) throws -> CLIResult {
        try CLI.run(["convert", try folder(dir, path: path), "-o", dir.file("out") + "/"])
    }

    @Test("A link out of the folder, a file that is not audio and an empty one are refused (exit 65, one line, nothing written)",
          arguments: ["passwd.wav", "garbage.wav", "empty.wav", "sub/../../p.json", "/etc/passwd"])
    func refused(path: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try Self.convert(dir, path: path)
        #expect(r.status == 65, "\(path): \(r)")
        #expect(r.stderrLines.filter { $0.contains("error") }.count == 1, "\(r.stderr)")
        #expect(!dir.exists(dir.file("out")), "nothing written for \(path)")
        #expect(!r.stderr.contains("root:"), "no byte of the file outside is echoed")
    }

    @Test("What truly stays inside is copied: sub/../real.wav, and a link to a sound in the folder", arguments: ["sub/../real.wav", "alias.wav"])
    func accepted(path: String) throws {
        let dir = try TempDir()
        defer { dir.remove() }
        let r = try Self.convert(dir, path: path)
        #expect(r.status == 0, "\(path): \(r)")
        let copied = dir.contents(of: dir.file("out/audio"))
        #expect(copied.count == 1, "\(copied)")
        let original = try Data(contentsOf: URL(fileURLWithPath: dir.file("ahap/real.wav")))
        #expect(try Data(contentsOf: URL(fileURLWithPath: dir.file("out/audio/" + (copied.first ?? "")))) == original)
    }
}
