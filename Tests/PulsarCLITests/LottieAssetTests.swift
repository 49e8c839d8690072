import Foundation
import PulsarLottieRender
import PulsarTestSupport
import Testing

#if canImport(Glibc)
import Glibc
#endif

/// A bundle plays only what it holds: a Lottie image asset naming a file outside the bundle
/// (`../../private/secret.png`) is refused in one line by every command that draws or packs it,
/// and the file is never opened (inotify reports every open of it by any process); images inside
/// the bundle, in a dotLottie archive, beside a loose Lottie file or inline as `data:` URIs still
/// draw.
@Suite("Lottie image assets", .serialized)
struct LottieAssetTests {
    /// Layout: `<dir>/private/secret.png` (red, 64×64), and two folders below `<dir>` (so the
    /// escape `../../private/` from the bundle's parent folder, the resource path the commands
    /// gave rlottie, lands on the secret) the bundles and files.
    struct Fixture: Sendable {
        let dir: String
        var secret: String { dir + "/private/secret.png" }
        var place: String { dir + "/x/y" }
        func at(_ name: String) -> String { place + "/" + name }
    }

    static let resources = CLI.resources

    static let fixture: Result<Fixture, any Error> = Result {
        let fm = FileManager.default
        let f = Fixture(dir: fm.temporaryDirectory.appendingPathComponent("pulsar-assets-\(UUID().uuidString.prefix(8))").path)
        try fm.createDirectory(atPath: f.dir + "/private", withIntermediateDirectories: true)
        try fm.createDirectory(atPath: f.place, withIntermediateDirectories: true)
        let red = try redPNG()
        try Data(red).write(to: URL(fileURLWithPath: f.secret))
        try makeBundle(f.at("escape"), u: "../../private/", p: "secret.png")
        try makeBundle(f.at("inside"), u: "images/", p: "red.png", files: ["animation/images/red.png": red])
        try makeBundle(f.at("inline"), u: "", p: "data:image/png;base64," + Data(red).base64EncodedString(), e: 1)
        try makeBundle(f.at("absolute"), u: f.dir + "/private/", p: "secret.png")
        try makeBundle(f.at("missing"), u: "images/", p: "gone.png")
        for name in ["escape", "inside"] { try zip(f.at(name), to: f.at(name + ".pulsar")) }
        try Data(animation(u: "../../private/", p: "secret.png")).write(to: URL(fileURLWithPath: f.at("loose.json")))
        try fm.createDirectory(atPath: f.at("img"), withIntermediateDirectories: true)
        try Data(red).write(to: URL(fileURLWithPath: f.at("img/red.png")))
        try Data(animation(u: "img/", p: "red.png")).write(to: URL(fileURLWithPath: f.at("near.json")))
        try makeDotLottie(f.at("dot.lottie"), p: "red.png", files: ["i/red.png": red])
        try makeDotLottie(f.at("dotescape.lottie"), p: "../../../private/secret.png", files: [:])
        return f
    }

    // MARK: Refused

    static let refusals: [(command: String, input: String, rule: String)] = [
        ("frame", "escape", "asset-outside-bundle"), ("frame", "escape.pulsar", "asset-outside-bundle"),
        ("video", "escape", "asset-outside-bundle"), ("video", "escape.pulsar", "asset-outside-bundle"),
        ("view", "escape", "asset-outside-bundle"), ("view", "escape.pulsar", "asset-outside-bundle"),
        ("pack", "escape", "asset-outside-bundle"), ("frame", "absolute", "asset-outside-bundle"),
        ("frame", "missing", "asset-missing"), ("pack", "missing", "asset-missing"),
        ("frame", "loose.json", "asset-outside-bundle"), ("video", "loose.json", "asset-outside-bundle"),
        ("frame", "dotescape.lottie", "asset-outside-bundle"),
    ]

    @Test("An image asset outside the bundle (or missing) is refused in one line, 65, no output, the file never opened",
          arguments: refusals.indices)
    func refused(_ index: Int) throws {
        let (command, input, rule) = Self.refusals[index]
        let f = try Self.fixture.get()
        let out = try TempDir()
        defer { out.remove() }
        let watch = try OpenWatch(f.secret)
        let result = try CLI.run(Self.arguments(command, f.at(input), output: out.file("out")), environment: ["SDL_VIDEODRIVER": "offscreen"])
        #expect(result.status == 65, "\(result)")
        #expect(result.stderrLines.count == 1 && result.stderr.hasPrefix("pulsar: error: ") && result.stderr.contains("[\(rule)]"), "\(result)")
        #expect(result.stderr.contains("image asset \"img_0\""), "\(result)")
        #expect(out.contents().isEmpty, "nothing written: \(out.contents())")
        #expect(watch.opens() == 0, "\(command) \(input) opened the file outside the bundle")
        // The watch itself sees an open: the test reads the file once.
        _ = try Data(contentsOf: URL(fileURLWithPath: f.secret))
        #expect(watch.opens() >= 1, "inotify saw the test's own open")
    }

    @Test("The escape message names the file, the asset and its path")
    func message() throws {
        let f = try Self.fixture.get()
        let out = try TempDir()
        defer { out.remove() }
        let result = try CLI.run(["frame", f.at("escape"), "--preset", "pulse", "--at", "0", "-o", out.file("f.png")])
        #expect(result.stderr == "pulsar: error: \(f.at("escape")):animation/pulse.json: image asset \"img_0\" (../../private/secret.png) lies outside the bundle [asset-outside-bundle]\n")
    }

    // MARK: Drawn

    @Test("Images inside a bundle, zipped, packed, inline, beside a loose file or in a dotLottie draw red",
          arguments: ["inside", "inside.pulsar", "inline", "near.json", "dot.lottie", "packed"])
    func drawn(_ input: String) throws {
        let f = try Self.fixture.get()
        let out = try TempDir()
        defer { out.remove() }
        var path = f.at(input)
        if input == "packed" {
            path = out.file("packed.pulsar")
            let pack = try CLI.run(["pack", f.at("inside"), "-o", path, "--quiet"])
            #expect(pack.status == 0, "\(pack)")
        }
        let watch = try OpenWatch(f.secret)
        let result = try CLI.run(Self.arguments("frame", path, output: out.file("f.png")))
        try #require(result.status == 0, "\(result)")
        let image = try PNGWriter.readImage(from: out.file("f.png"))
        #expect(Self.isRed(image.rgba(x: 8, y: 8)), "the image's colour at (8, 8): \(image.rgba(x: 8, y: 8))")
        #expect(watch.opens() == 0)
    }

    @Test("The viewer draws an image inside the bundle (SDL offscreen)")
    func viewDrawn() throws {
        let f = try Self.fixture.get()
        let out = try TempDir()
        defer { out.remove() }
        let result = try CLI.run(["view", f.at("inside.pulsar"), "--preset", "pulse", "--device", "sim", "--at", "0",
                                  "--screenshot", out.file("p.png")], environment: ["SDL_VIDEODRIVER": "offscreen"])
        try #require(result.status == 0, "\(result)")
        let image = try PNGWriter.readImage(from: out.file("p.png"))
        #expect(Self.isRed(image.rgba(x: 8, y: 8)), "\(image.rgba(x: 8, y: 8))")
    }

    @Test("Control: rlottie given the bundle's parent folder, as the commands did, reads and draws the file outside")
    func controlOldResourcePath() throws {
        let f = try Self.fixture.get()
        let watch = try OpenWatch(f.secret)
        let json = Self.animation(u: "../../private/", p: "secret.png")
        let old = try LottieRenderer(jsonData: json, resourcePath: f.place).render(frame: 0, width: 64, height: 64)
        #expect(Self.isRed(old.rgba(x: 8, y: 8)), "the escape works on a real resource path")
        #expect(watch.opens() >= 1)
        let sealed = try LottieRenderer(jsonData: json).render(frame: 0, width: 64, height: 64)
        #expect(sealed.rgba(x: 8, y: 8).a == 0, "the default resource path resolves nothing")
        let absolute = try LottieRenderer(jsonData: Self.animation(u: f.dir + "/private/", p: "secret.png")).render(frame: 0, width: 64, height: 64)
        #expect(absolute.rgba(x: 8, y: 8).a == 0, "nor an absolute u")
        #expect(watch.opens() == 0, "neither opened the file")
    }

    // MARK: Helpers

    /// The secret's red, as rlottie draws it (its alpha rounds to 253).
    static func isRed(_ c: RGBA8) -> Bool { c.r >= 250 && c.g <= 5 && c.b <= 5 && c.a >= 250 }

    static func arguments(_ command: String, _ input: String, output: String) -> [String] {
        let preset = input.hasSuffix(".json") || input.hasSuffix(".lottie") ? [] : ["--preset", "pulse"]
        switch command {
        case "frame": return ["frame", input] + preset + ["--at", "0", "-o", output]
        case "video": return ["video", input] + preset + ["-o", output + ".mp4"]
        case "view": return ["view", input] + preset + ["--device", "sim", "--at", "0", "--screenshot", output + ".png"]
        default: return ["pack", input, "-o", output + ".pulsar"]
        }
    }

    /// A 64×64 animation (one second at 30 fps) whose only layer shows image asset `img_0` at
    /// the top left of a 240×240 composition.
    static func animation(u: String, p: String, e: Int = 0) -> Data {
        let layer: [String: Any] = [
            "ddd": 0, "ind": 1, "ty": 2, "nm": "img", "refId": "img_0", "sr": 1, "ao": 0, "ip": 0, "op": 90, "st": 0, "bm": 0,
            "ks": ["o": ["a": 0, "k": 100], "r": ["a": 0, "k": 0], "p": ["a": 0, "k": [32, 32, 0]],
                   "a": ["a": 0, "k": [32, 32, 0]], "s": ["a": 0, "k": [100, 100, 100]]],
        ]
        let doc: [String: Any] = ["v": "5.7.4", "nm": "img", "fr": 30, "ip": 0, "op": 90, "w": 240, "h": 240, "ddd": 0,
                                  "assets": [["id": "img_0", "w": 64, "h": 64, "u": u, "p": p, "e": e]], "layers": [layer]]
        return try! JSONSerialization.data(withJSONObject: doc)
    }

    /// The demo bundle without its audio, preset `pulse`'s animation replaced by `animation(u:p:e:)`.
    static func makeBundle(_ path: String, u: String, p: String, e: Int = 0, files: [String: [UInt8]] = [:]) throws {
        let fm = FileManager.default
        try fm.copyItem(atPath: resources + "/demo-bundle", toPath: path)
        let manifestPath = path + "/manifest.json"
        var manifest = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: manifestPath))) as! [String: Any]
        var presets = manifest["presets"] as! [[String: Any]]
        presets[0]["audio"] = nil
        manifest["presets"] = presets
        try JSONSerialization.data(withJSONObject: manifest).write(to: URL(fileURLWithPath: manifestPath))
        try animation(u: u, p: p, e: e).write(to: URL(fileURLWithPath: path + "/animation/pulse.json"))
        for (name, bytes) in files {
            try fm.createDirectory(atPath: (path + "/" + name as NSString).deletingLastPathComponent, withIntermediateDirectories: true)
            try Data(bytes).write(to: URL(fileURLWithPath: path + "/" + name))
        }
    }

    static func makeDotLottie(_ path: String, p: String, files: [String: [UInt8]]) throws {
        var entries = files.mapValues { Data($0) }
        entries["manifest.json"] = Data(#"{"version":"1","animations":[{"id":"a"}]}"#.utf8)
        entries["a/a.json"] = animation(u: "/i/", p: p)
        try python("""
            import zipfile, sys, base64, json
            with zipfile.ZipFile(sys.argv[1], 'w', zipfile.ZIP_DEFLATED) as z:
                for name, b64 in json.loads(sys.argv[2]).items(): z.writestr(name, base64.b64decode(b64))
            """, [path, String(decoding: try JSONSerialization.data(withJSONObject: entries.mapValues { $0.base64EncodedString() }), as: UTF8.self)])
    }

    static func zip(_ folder: String, to out: String) throws {
        try python("""
            import zipfile, os, sys
            src, out = sys.argv[1], sys.argv[2]
            with zipfile.ZipFile(out, 'w', zipfile.ZIP_DEFLATED) as z:
                for root, _, files in os.walk(src):
                    for f in files:
                        p = os.path.join(root, f); z.write(p, os.path.relpath(p, src))
            """, [folder, out])
    }

    static func python(_ script: String, _ arguments: [String]) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/python3")
        process.arguments = ["-c", script] + arguments
        try process.run()
        process.waitUntilExit()
        guard process.terminationStatus == 0 else { throw AssetTestFailure(description: "python3 failed for \(arguments.first ?? "")") }
    }

    static func redPNG() throws -> [UInt8] {
        try PNGWriter.encode(rgba: Array([[UInt8]](repeating: [255, 0, 0, 255], count: 64 * 64).joined()), width: 64, height: 64)
    }
}

struct AssetTestFailure: Error, CustomStringConvertible { var description: String }

/// Counts the opens of one file by any process, through inotify (`IN_OPEN`): the proof that
/// nothing opened it, with no tracer needed.
final class OpenWatch {
    private let fd: Int32

    init(_ path: String) throws {
        fd = inotify_init1(Int32(IN_NONBLOCK | IN_CLOEXEC))
        guard fd >= 0, inotify_add_watch(fd, path, UInt32(IN_OPEN)) >= 0 else {
            throw AssetTestFailure(description: "inotify on \(path): \(String(cString: strerror(errno)))")
        }
    }

    deinit { close(fd) }

    /// Opens reported since the last call.
    func opens() -> Int {
        var count = 0
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let n = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
            guard n > 0 else { return count }
            var offset = 0
            while offset + MemoryLayout<inotify_event>.size <= n {
                let event = buffer.withUnsafeBytes { $0.loadUnaligned(fromByteOffset: offset, as: inotify_event.self) }
                if event.mask & UInt32(IN_OPEN) != 0 { count += 1 }
                offset += MemoryLayout<inotify_event>.size + Int(event.len)
            }
        }
    }
}
