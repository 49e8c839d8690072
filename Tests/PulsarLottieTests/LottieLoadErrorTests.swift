import PulsarCore
import Foundation
import PulsarLottie
import PulsarTestSupport
import Testing

/// dotLottie archives, and what cannot be used: every error names the file and the rule.
@Suite struct LottieLoadErrorTests {
    static func error(_ body: () throws(LottieError) -> LottieAnimation) -> LottieError? {
        do {
            _ = try body()
            return nil
        } catch {
            return error
        }
    }

    @Test func deflatedDotLottie2LoadsItsFirstAnimation() throws {
        let path = try LottieFixtures.temporaryFile("packed.lottie", LottieFixtures.packedDotLottie)
        let animation = try LottieAnimation.load(path: path)
        #expect(animation.entry == "a/packed.json")
        #expect(animation.timing == LottieTiming(frameRate: 29.97, inPoint: 0, outPoint: 60))
        #expect(animation.width == 64 && animation.height == 48)
        #expect(animation.layers.map(\.name) == (0..<6).map { "Shape \($0)" })
        #expect(animation.marker(named: "intro")?.frameRange == LottieFrameRange(start: 5, end: 15))
        #expect(try animation.rlottieTargets(for: "Shape 3.**.Fill 1.Color").map(\.keypath) == ["Shape 3.Group 1.Fill 1"])
        // The JSON handed on is the entry's document.
        #expect(try LottieAnimation(json: animation.json).layers == animation.layers)
    }

    @Test func storedDotLottie1LoadsFromAnimations() throws {
        let json = LottieFixtures.document(fr: "25", ip: "5", op: "30", layers: #"[{"ty":4,"nm":"Only","shapes":[]}]"#)
        let zip = LottieFixtures.storedZip([
            ("manifest.json", Array(#"{"version":"1.0","animations":[{"id":"first"},{"id":"second"}]}"#.utf8)),
            ("animations/second.json", Array(LottieFixtures.document(layers: "[]"))),
            ("animations/first.json", json),
        ])
        let animation = try LottieAnimation(bytes: zip, source: "v1.lottie")
        #expect(animation.entry == "animations/first.json")
        #expect(animation.timing == LottieTiming(frameRate: 25, inPoint: 5, outPoint: 30))
        #expect(animation.allHierarchyKeypaths().first == "Only")
    }

    @Test func brokenDotLottiesNameTheFileAndRule() throws {
        let noManifest = LottieFixtures.storedZip([("a/x.json", LottieFixtures.document(layers: "[]"))])
        let path = try LottieFixtures.temporaryFile("broken.lottie", noManifest)
        let missing = Self.error { () throws(LottieError) in try LottieAnimation.load(path: path) }
        #expect(missing?.rule == .missingManifest)
        #expect(missing?.file == path && missing?.entry == nil)

        let wrongID = LottieFixtures.storedZip([("manifest.json", Array(#"{"animations":[{"id":"y"}]}"#.utf8)),
                                                ("a/x.json", LottieFixtures.document(layers: "[]"))])
        let absent = Self.error { () throws(LottieError) in try LottieAnimation(bytes: wrongID, source: "w.lottie") }
        #expect(absent?.rule == .missingAnimation)
        #expect(absent?.description.contains("a/y.json") == true)

        let emptyManifest = LottieFixtures.storedZip([("manifest.json", Array(#"{"animations":[]}"#.utf8))])
        #expect(Self.error { () throws(LottieError) in try LottieAnimation(bytes: emptyManifest) }?.rule == .malformedManifest)

        let badManifest = LottieFixtures.storedZip([("manifest.json", Array("{\n  \"animations\": [,]}".utf8))])
        let bad = Self.error { () throws(LottieError) in try LottieAnimation(bytes: badManifest, source: "m.lottie") }
        #expect(bad?.rule == .malformedManifest && bad?.line == 2 && bad?.entry == "manifest.json")

        // A flipped byte inside a STORE'd entry fails its CRC.
        var flipped = LottieFixtures.storedZip([("manifest.json", Array(#"{"animations":[{"id":"x"}]}"#.utf8)),
                                                ("a/x.json", LottieFixtures.document(layers: "[]"))])
        let at = try #require(flipped.firstIndex(of: UInt8(ascii: "w")))
        flipped[at] = UInt8(ascii: "W")
        let crc = Self.error { () throws(LottieError) in try LottieAnimation(bytes: flipped, source: "c.lottie") }
        #expect(crc?.rule == .corruptArchive)
        #expect(crc?.description.contains("CRC") == true && crc?.entry == "a/x.json")
    }

    /// Every truncation and every single-byte corruption of the deflated archive either loads the
    /// same animation or throws a `LottieError`: nothing crashes or hangs.
    @Test func damagedArchivesFailCleanly() throws {
        let bytes = LottieFixtures.packedDotLottie
        let good = try LottieAnimation(bytes: bytes)
        for length in 0..<bytes.count {
            let cut = Array(bytes[0..<length])
            #expect(Self.error { () throws(LottieError) in try LottieAnimation(dotLottie: cut, source: "cut.lottie") } != nil,
                    "cut at \(length)")
        }
        var rules = Set<LottieError.Rule>()
        for index in 0..<bytes.count {
            var damaged = bytes
            damaged[index] ^= 0x5A
            do {
                let animation = try LottieAnimation(dotLottie: damaged, source: "damaged.lottie")
                #expect(animation.timing == good.timing, "byte \(index)")
            } catch {
                rules.insert(error.rule)
            }
        }
        #expect(rules.contains(.corruptArchive))
    }

    /// A haptic pattern is JSON, but not an animation.
    @Test(.enabled(if: SharedCorpus.available("bundles/demo-unpacked/haptics/verified.json"), "needs ../shared/corpus"))
    func aHapticPatternIsRefusedAsNotLottie() throws {
        let path = try SharedCorpus.path("bundles/demo-unpacked/haptics/verified.json")
        let error = Self.error { () throws(LottieError) in try LottieAnimation.load(path: path) }
        #expect(error?.rule == .notLottie)
        #expect(error?.description.hasPrefix(path + ":1:1: $: not a Lottie animation") == true)
    }

    @Test func nonLottieInputsAreRefusedWithPlaceAndRule() throws {
        let cases: [(String, LottieError.Rule, String?, Int?)] = [
            ("[1, 2]", .notLottie, "$", 1),
            ("{\"fr\": 30,\n \"ip\": 0,\n \"op\": 10, \"w\": 1, \"h\": 1}", .notLottie, "$", 1),
            ("{\"fr\": 30,\n \"ip\": ,\n}", .malformedJSON, nil, 2),
            ("{\"fr\": 0, \"ip\": 0, \"op\": 10, \"w\": 1, \"h\": 1, \"layers\": []}", .badValue, "$.fr", 1),
            ("{\"fr\": 30, \"ip\": 10,\n\"op\": 10, \"w\": 1, \"h\": 1, \"layers\": []}", .badValue, "$.op", 2),
            ("{\"fr\": \"30\", \"ip\": 0, \"op\": 10, \"w\": 1, \"h\": 1, \"layers\": []}", .wrongType, "$.fr", 1),
            ("{\"fr\": 30, \"ip\": 0, \"op\": 10, \"w\": 0, \"h\": 1, \"layers\": []}", .badValue, "$.w", 1),
            ("{\"fr\": 30, \"ip\": 0, \"op\": 10, \"w\": 1, \"h\": 1, \"layers\": {}}", .wrongType, "$.layers", 1),
            ("PK\u{5}\u{6}", .notZip, nil, nil),
        ]
        for (text, rule, jsonPath, line) in cases {
            let error = Self.error { () throws(LottieError) in try LottieAnimation(bytes: Array(text.utf8), source: "case.json") }
            #expect(error?.rule == rule, "\(text)")
            #expect(error?.jsonPath == jsonPath && error?.line == line, "\(text): \(String(describing: error))")
            #expect(error?.file == "case.json", "\(text)")
        }
        let missingFile = Self.error { () throws(LottieError) in try LottieAnimation.load(path: "/nonexistent/x.json") }
        #expect(missingFile?.rule == .notFound && missingFile?.file == "/nonexistent/x.json")
    }

    @Test func precompositionsExpandAndCyclesAreRefused() throws {
        let assets = #"[{"id":"inner","layers":[{"ty":4,"nm":"Leaf","shapes":[{"ty":"fl","nm":"Fill 1"}]}]},{"id":"img","w":1,"h":1,"p":"x.png"}]"#
        let layers = #"[{"ty":0,"nm":"Comp","refId":"inner"},{"ty":0,"nm":"Ghost","refId":"gone"},{"ty":2,"nm":"Picture","refId":"img"}]"#
        let animation = try LottieAnimation(json: LottieFixtures.document(layers: layers, assets: assets))
        #expect(try animation.rlottieTargets(for: "Comp.Leaf.Fill 1.Color").map(\.keypath) == ["Comp.Leaf.Fill 1"])
        #expect(animation.layers[0].kind == .precomp && animation.layers[0].layers.map(\.name) == ["Leaf"])
        #expect(animation.warnings.count == 1 && animation.warnings[0].contains("gone"))

        let cyclic = #"[{"id":"a","layers":[{"ty":0,"nm":"toB","refId":"b"}]},{"id":"b","layers":[{"ty":0,"nm":"toA","refId":"a"}]}]"#
        let error = Self.error { () throws(LottieError) in
            try LottieAnimation(json: LottieFixtures.document(layers: #"[{"ty":0,"nm":"root","refId":"a"}]"#, assets: cyclic),
                                source: "cycle.json")
        }
        #expect(error?.rule == .precompCycle)
        #expect(error?.jsonPath == "$.assets[1].layers[0]")
    }
}
