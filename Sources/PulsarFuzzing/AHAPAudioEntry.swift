#if canImport(Glibc)
import Glibc
#endif
import FoundationEssentials
import PulsarCore
import PulsarSession

/// `pulsar convert X.ahap -o FOLDER/` on an AHAP whose `AudioCustom` events name files around
/// it, through the session layer's `AHAPAudioBundle` (what the command runs). Each input is the text of `in/x.ahap`, in a
/// folder made fresh for it beside:
///
///     in/s.wav                a real sound (inside: may be copied)
///     in/link.wav -> s.wav    a link that stays inside
///     in/sub/t.wav            a sound in a subfolder
///     in/empty.wav            0 bytes
///     in/passwd.wav -> /etc/passwd
///     in/away.wav -> ../away/o.wav, in/away -> ../away
///     away/o.wav              a real sound outside the AHAP's folder
///
/// The bundle folder is written to `out/b`. After the conversion, anything in the scratch folder
/// outside `out/` that changed, anything left in `out/` but `b`, or a copied sound whose bytes are
/// not those of a sound inside `in/` is a finding (a trap). Every folder goes before the next
/// input. One process keeps its files in `pulsar-fuzz-ahap-PID/` in /dev/shm (memory: a disk
/// mounted with `discard` takes most of a millisecond per folder removed), or /tmp without it,
/// one input at a time (a lock keeps callers on other threads, as a parallel test run, waiting).
enum AHAPAudioEntry {
    static let scratch = (access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp") + "/pulsar-fuzz-ahap-\(getpid())"
    /// The sounds: the one inside and the one outside differ (so a copy tells where it came from).
    static let inside = wav(frames: 400, level: 8_000)
    static let outside = wav(frames: 600, level: -8_000)

    private static let lock = Lock()

    static func run(_ bytes: [UInt8]) {
        lock.lock()
        defer { lock.unlock() }
        remove(scratch)
        defer { remove(scratch) }
        guard build(ahap: bytes) else { return }
        let before = snapshot()
        var warnings: [ContentWarning] = []
        _ = try? AHAPAudioBundle.bundleFolder(from: scratch + "/in/x.ahap", to: scratch + "/out/b", warnings: &warnings)
        check(before: before)
    }

    /// The folders of one input; false when the machine refused one (not a finding).
    private static func build(ahap: [UInt8]) -> Bool {
        let i = scratch + "/in", a = scratch + "/away"
        let folders: [String] = [scratch, i, i + "/sub", a, scratch + "/out"]
        let ok = folders.allSatisfy { mkdir($0, 0o755) == 0 }
            && write(ahap, to: i + "/x.ahap") && write(inside, to: i + "/s.wav") && write(inside, to: i + "/sub/t.wav")
            && write([], to: i + "/empty.wav") && write(outside, to: a + "/o.wav")
        return ok && symlink("s.wav", i + "/link.wav") == 0 && symlink("/etc/passwd", i + "/passwd.wav") == 0
            && symlink("../away/o.wav", i + "/away.wav") == 0 && symlink("../away", i + "/away") == 0
    }

    /// What the conversion may not have touched is as it was; what it wrote is a bundle folder
    /// and nothing else; a sound it copied is one from inside the AHAP's folder.
    private static func check(before: [String: String]) {
        let isOutput = { (path: String) in path == "out" || path.hasPrefix("out/") }
        let all = snapshot()
        let written = all.keys.filter(isOutput)
        let kept = before.filter { !isOutput($0.key) }, now = all.filter { !isOutput($0.key) }
        precondition(now == kept, "convert changed files outside its output folder: \(diff(kept, now))")
        for path in written {
            precondition(path == "out" || path == "out/b" || path.hasPrefix("out/b/"), "convert left \(path) beside its output folder")
        }
        let audio = scratch + "/out/b/audio"
        for name in (try? FileManager.default.contentsOfDirectory(atPath: audio)) ?? [] {
            let copied = FileManager.default.contents(atPath: audio + "/" + name).map { [UInt8]($0) }
            precondition(copied == inside, "convert copied audio/\(name), which is not a sound inside the AHAP's folder")
        }
    }

    /// Every path under the scratch folder (links not followed) with its kind, size, link target
    /// and modification time.
    private static func snapshot() -> [String: String] {
        var all: [String: String] = [:]
        guard let walk = try? FileManager.default.subpathsOfDirectory(atPath: scratch) else { return all }
        for relative in walk {
            var s = stat()
            guard lstat(scratch + "/" + relative, &s) == 0 else { continue }
            let target = (try? FileManager.default.destinationOfSymbolicLink(atPath: scratch + "/" + relative)) ?? ""
            all[relative] = "\(s.st_mode) \(s.st_size) \(s.st_mtim.tv_sec).\(s.st_mtim.tv_nsec) \(target)"
        }
        return all
    }

    private static func diff(_ a: [String: String], _ b: [String: String]) -> String {
        Set(a.keys).union(b.keys).filter { a[$0] != b[$0] }.sorted().joined(separator: ", ")
    }

    private static func write(_ bytes: [UInt8], to path: String) -> Bool {
        let fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0o644)
        guard fd >= 0 else { return false }
        defer { close(fd) }
        return bytes.withUnsafeBytes { $0.isEmpty || Glibc.write(fd, $0.baseAddress, $0.count) == $0.count }
    }

    private static func remove(_ path: String) {
        try? FileManager.default.removeItem(atPath: path)
    }

    /// A 16-bit mono 8 kHz WAV of `frames` frames of a square wave at ±`level`.
    static func wav(frames: Int, level: Int16) -> [UInt8] {
        func le32(_ v: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        func le16(_ v: Int) -> [UInt8] { (0..<2).map { UInt8(truncatingIfNeeded: v >> (8 * $0)) } }
        let data = (0..<frames).flatMap { f in le16(Int(f / 8 % 2 == 0 ? level : -level)) }
        return Array("RIFF".utf8) + le32(36 + data.count) + Array("WAVEfmt ".utf8) + le32(16) + le16(1) + le16(1)
            + le32(8_000) + le32(16_000) + le16(2) + le16(16) + Array("data".utf8) + le32(data.count) + data
    }
}
