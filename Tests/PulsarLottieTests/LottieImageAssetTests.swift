import Foundation
import PulsarCore
import PulsarLottie
import PulsarLottieRender
import PulsarTestSupport
import Testing

/// `LottieImageAssets.embed`: image assets resolved inside their container through the
/// caller's lookup, or refused; data URIs kept; documents without images untouched.
@Suite("Lottie image asset resolution")
struct LottieImageAssetTests {
    static let png: [UInt8] = try! PNGWriter.encode(rgba: Array([[UInt8]](repeating: [255, 0, 0, 255], count: 16 * 16).joined()),
                                                    width: 16, height: 16)

    /// A document whose `assets` is `assetsJSON` (raw JSON text, so duplicate keys survive).
    static func document(_ assetsJSON: String) -> [UInt8] {
        Array(#"{"v":"5.7.4","fr":30,"ip":0,"op":30,"w":64,"h":64,"assets":\#(assetsJSON),"layers":[{"ty":2,"ind":1,"refId":"a","ip":0,"op":30,"st":0,"ks":{"o":{"a":0,"k":100},"p":{"a":0,"k":[8,8,0]},"a":{"a":0,"k":[8,8,0]},"s":{"a":0,"k":[100,100,100]},"r":{"a":0,"k":0}}}]}"#.utf8)
    }

    /// A container of `files` whose animation is in `folder`, recording each path asked for.
    final class Recorder: @unchecked Sendable {
        var asked: [(path: String, limit: Int)] = []
        func files(_ files: [String: [UInt8]], folder: String = "animation") -> LottieImageFiles {
            LottieImageFiles(container: "the bundle", folder: folder) { (path, limit) throws(LottieImageFiles.Refusal) in
                self.asked.append((path, limit))
                guard let bytes = files[path] else { throw .missing }
                return bytes
            }
        }
    }

    static func assets(_ bytes: [UInt8]) throws -> [[String: Any]] {
        let doc = try JSONSerialization.jsonObject(with: Data(bytes)) as! [String: Any]
        return doc["assets"] as! [[String: Any]]
    }

    @Test("Documents without image assets come back as the same bytes (corpus and demo bundle)")
    func passThrough() throws {
        var paths = (try? LottieFixtures.corpusAnimations()) ?? []
        let resources = SharedCorpus.projectRoot + "/Resources/demo-bundle/animation"
        paths += ["heartbeat.json", "pulse.json"].map { resources + "/" + $0 }
        for path in paths {
            let bytes = Array(try Data(contentsOf: URL(fileURLWithPath: path)))
            #expect(try LottieImageAssets.embed(bytes, file: path, from: .none) == bytes, "\(path)")
        }
        let precomp = Self.document(#"[{"id":"c","layers":[]}]"#)
        #expect(try LottieImageAssets.embed(precomp, file: "p.json", from: .none) == precomp)
    }

    @Test("Corpus and demo renders are bit-identical to rendering the file as read with its folder as resource path")
    func rendersUnchanged() throws {
        var paths = (try? LottieFixtures.corpusAnimations()) ?? []
        paths += ["heartbeat.json", "pulse.json"].map { SharedCorpus.projectRoot + "/Resources/demo-bundle/animation/" + $0 }
        #expect(paths.count >= 31 || !SharedCorpus.available("lottie"), "the corpus's 29 animations and the demo's 2")
        for path in paths {
            let read = try LottieAnimation.load(path: path)
            let embedded = try read.embeddingImages(from: .folder(of: path))
            let old = try LottieRenderer(jsonData: read.json, resourcePath: (path as NSString).deletingLastPathComponent)
            let new = try LottieRenderer(jsonData: embedded.json)
            for frame in [0, old.animation.totalFrames / 2] {
                #expect(try old.render(frame: frame, width: 160, height: 120) == new.render(frame: frame, width: 160, height: 120),
                        "\(path) frame \(frame)")
            }
        }
    }

    @Test("A file inside the container is embedded as a data URI with e 1 and u empty, read once")
    func embedsInside() throws {
        let recorder = Recorder()
        let out = try LottieImageAssets.embed(Self.document(#"[{"id":"a","w":16,"h":16,"u":"images/","p":"red.png","e":0}]"#),
                                              file: "b", from: recorder.files(["animation/images/red.png": Self.png]))
        let asset = try #require(try Self.assets(out).first)
        #expect(asset["p"] as? String == "data:image/png;base64," + Data(Self.png).base64EncodedString())
        #expect(asset["e"] as? Int == 1 && asset["u"] as? String == "" && asset["id"] as? String == "a" && asset["w"] as? Int == 16)
        #expect(recorder.asked.map(\.path) == ["animation/images/red.png"])
        #expect(recorder.asked.first?.limit == LottieImageAssets.maximumTotalBytes)
        let drawn = try RlottieAnimation(jsonData: out).render(frame: 0, width: 64, height: 64)
        #expect(ARGB32Image.unpremultiply(drawn[4 * 64 + 4]).r >= 250, "rlottie draws the embedded image")
    }

    @Test("`..` that stays inside the bundle is allowed: animation/../shared/x.png is shared/x.png")
    func climbsWithin() throws {
        let recorder = Recorder()
        _ = try LottieImageAssets.embed(Self.document(#"[{"id":"a","u":"../shared/","p":"x.png"}]"#), file: "b",
                                        from: recorder.files(["shared/x.png": Self.png]))
        #expect(recorder.asked.map(\.path) == ["shared/x.png"])
    }

    @Test("Data URIs stay (marked e 1); nothing is read", arguments: [0, 1])
    func dataURI(_ e: Int) throws {
        let uri = "data:image/png;base64," + Data(Self.png).base64EncodedString()
        let recorder = Recorder()
        let out = try LottieImageAssets.embed(Self.document(#"[{"id":"a","u":"x/","p":"\#(uri)","e":\#(e)}]"#), file: "b",
                                              from: recorder.files([:]))
        let asset = try #require(try Self.assets(out).first)
        #expect(asset["p"] as? String == uri && asset["e"] as? Int == 1)
        #expect(recorder.asked.isEmpty)
    }

    static let refused: [(u: String, p: String, rule: String)] = [
        ("../../private/", "secret.png", "asset-outside-bundle"),
        ("/etc/", "passwd", "asset-outside-bundle"),
        ("", "/etc/passwd", "asset-outside-bundle"),
        ("a/../../../", "x.png", "asset-outside-bundle"),
        ("images/", "../../..", "asset-outside-bundle"),
        ("", "..", "asset-outside-bundle"),
        ("images/", "", "asset-missing"),
        ("images/", "gone.png", "asset-missing"),
    ]

    @Test("Escaping, absolute, empty and missing names are refused by rule; an escape reads nothing",
          arguments: refused.indices)
    func refusals(_ index: Int) throws {
        let (u, p, rule) = Self.refused[index]
        let recorder = Recorder()
        let json = Self.document(#"[{"id":"img_0","u":"\#(u)","p":"\#(p)","e":0}]"#)
        do {
            _ = try LottieImageAssets.embed(json, file: "b.pulsar:animation/a.json", from: recorder.files(["private/secret.png": Self.png]))
            Issue.record("accepted \(u)\(p)")
        } catch {
            #expect(error.rule.rawValue == rule, "\(error)")
            #expect(error.description.hasPrefix("b.pulsar:animation/a.json: image asset \"img_0\""), "\(error)")
            if rule == "asset-outside-bundle" { #expect(recorder.asked.isEmpty, "nothing looked up") }
        }
    }

    @Test("The last of duplicate p members is the one checked, and the output keeps one p, u and e", arguments: [true, false])
    func duplicateKeys(_ badLast: Bool) throws {
        let recorder = Recorder()
        let pair = badLast ? #""p":"ok.png","u":"","p":"../../secret.png""# : #""p":"../../secret.png","u":"","p":"ok.png""#
        let json = Self.document("[{\"id\":\"a\",\(pair),\"u\":\"\",\"e\":0,\"e\":0}]")
        let files = recorder.files(["animation/ok.png": Self.png])
        guard !badLast else {
            #expect(throws: LottieError.self) { _ = try LottieImageAssets.embed(json, file: "b", from: files) }
            return
        }
        let out = try LottieImageAssets.embed(json, file: "b", from: files)
        let root = try JSONParser().parse(out)
        let members = try #require(root["assets"]?.array?.first?.object)
        #expect(members.filter { $0.key == "p" }.count == 1 && members.filter { $0.key == "u" }.count == 1
                && members.filter { $0.key == "e" }.count == 1)
        #expect(members.first { $0.key == "p" }?.value.string?.hasPrefix("data:image/png;base64,") == true)
    }

    @Test("A second top-level assets array is checked too")
    func duplicateAssetsArray() throws {
        let json = Array(String(decoding: Self.document("[]"), as: UTF8.self)
            .replacingOccurrences(of: #""assets":[]"#, with: #""assets":[],"assets":[{"id":"a","u":"../../","p":"s.png"}]"#).utf8)
        #expect(throws: LottieError.self) { _ = try LottieImageAssets.embed(json, file: "b", from: Recorder().files([:])) }
    }

    @Test("A hostile id or path makes a short one-line message")
    func hostileNames() throws {
        let id = "x\n\u{202E}" + String(repeating: "i", count: 10_000)
        let json = Self.document(#"[{"id":"\#(id.replacingOccurrences(of: "\n", with: "\\n"))","u":"../../\#(String(repeating: "d/", count: 5000))","p":"s.png"}]"#)
        do {
            _ = try LottieImageAssets.embed(json, file: "b", from: .none)
            Issue.record("accepted")
        } catch {
            let text = error.description
            #expect(!text.contains("\n") && !text.unicodeScalars.contains("\u{202E}") && text.count < 700, "\(text.count)")
            #expect(text.hasSuffix("[asset-outside-bundle]"))
        }
    }

    @Test("Image bytes count against one total: each read is given what is left; a refusal for size is too-large")
    func totalBound() throws {
        let recorder = Recorder()
        let json = Self.document(#"[{"id":"a","u":"","p":"1.png"},{"id":"b","u":"","p":"2.png"}]"#)
        _ = try LottieImageAssets.embed(json, file: "b", from: recorder.files(["animation/1.png": Self.png, "animation/2.png": Self.png]))
        #expect(recorder.asked.map(\.limit) == [LottieImageAssets.maximumTotalBytes, LottieImageAssets.maximumTotalBytes - Self.png.count])
        let big = LottieImageFiles(container: "the bundle", folder: "") { (_, limit) throws(LottieImageFiles.Refusal) in
            throw .tooLarge("more than \(limit)")
        }
        #expect(throws: LottieError.self) { _ = try LottieImageAssets.embed(json, file: "b", from: big) }
        do { _ = try LottieImageAssets.embed(json, file: "b", from: big) } catch { #expect(error.rule == .tooLarge) }
    }

    @Test("A p that is not a string is wrong-type")
    func wrongType() throws {
        do {
            _ = try LottieImageAssets.embed(Self.document(#"[{"id":"a","p":7}]"#), file: "b", from: .none)
            Issue.record("accepted")
        } catch {
            #expect(error.rule == .wrongType && error.jsonPath == "$.assets[0].p")
        }
    }

    @Test("Media types by the first bytes")
    func mediaTypes() throws {
        let cases: [([UInt8], String)] = [
            (Self.png, "image/png"), ([0xFF, 0xD8, 0xFF, 0xE0], "image/jpeg"), (Array("GIF89a".utf8), "image/gif"),
            (Array("RIFF\0\0\0\0WEBPVP8 ".utf8), "image/webp"), (Array("  <svg xmlns='x'/>".utf8), "image/svg+xml"),
            (Array("<?xml version='1.0'?><svg/>".utf8), "image/svg+xml"), ([1, 2, 3], "application/octet-stream"),
        ]
        for (bytes, type) in cases {
            let out = try LottieImageAssets.embed(Self.document(#"[{"id":"a","u":"","p":"f"}]"#), file: "b",
                                                  from: Recorder().files(["animation/f": bytes]))
            #expect((try Self.assets(out).first?["p"] as? String)?.hasPrefix("data:\(type);base64,") == true, "\(type)")
        }
    }

    @Test("A loose file's folder: files below it are read, a symbolic link out of it is refused")
    func looseFolder() throws {
        let dir = FileManager.default.temporaryDirectory.appendingPathComponent("pulsar-imgs-\(UUID().uuidString.prefix(8))").path
        defer { try? FileManager.default.removeItem(atPath: dir) }
        try FileManager.default.createDirectory(atPath: dir + "/anim/img", withIntermediateDirectories: true)
        try FileManager.default.createDirectory(atPath: dir + "/private", withIntermediateDirectories: true)
        try Data(Self.png).write(to: URL(fileURLWithPath: dir + "/anim/img/red.png"))
        try Data(Self.png).write(to: URL(fileURLWithPath: dir + "/private/s.png"))
        try FileManager.default.createSymbolicLink(atPath: dir + "/anim/link.png", withDestinationPath: dir + "/private/s.png")
        try FileManager.default.createSymbolicLink(atPath: dir + "/anim/out", withDestinationPath: dir + "/private")
        let files = LottieImageFiles.folder(of: dir + "/anim/a.json")
        let ok = try LottieImageAssets.embed(Self.document(#"[{"id":"a","u":"img/","p":"red.png"}]"#), file: "a.json", from: files)
        #expect((try Self.assets(ok).first?["p"] as? String)?.hasPrefix("data:image/png") == true)
        for (u, p) in [("", "link.png"), ("out/", "s.png"), ("../private/", "s.png")] {
            do {
                _ = try LottieImageAssets.embed(Self.document(#"[{"id":"a","u":"\#(u)","p":"\#(p)"}]"#), file: "a.json", from: files)
                Issue.record("accepted \(u)\(p)")
            } catch {
                #expect(error.rule == .assetOutsideBundle, "\(error)")
            }
        }
    }
}
