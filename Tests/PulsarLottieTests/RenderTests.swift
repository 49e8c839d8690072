import Foundation
import PulsarLottie
import PulsarLottieRender
import PulsarTestSupport
import Testing

/// Rendering through rlottie, content modes and PNG output, checked on the shared Lottie corpus
/// (each test is reported as skipped without it, and fails without it under CI=true).
@Suite struct RenderTests {
    /// The corpus's Lottie files; throws when the corpus is absent (the tests that call this are
    /// skipped then, and fail under CI=true).
    static func corpusFiles() throws -> [String] {
        try SharedCorpus.requiredFiles(in: "lottie", ext: "json")
    }

    /// One corpus Lottie file by name; throws when it is absent.
    static func corpusFile(_ name: String) throws -> String {
        try SharedCorpus.path("lottie/" + name)
    }

    static func load(_ path: String, cacheKey: String? = nil) throws -> RlottieAnimation {
        let data = try Data(contentsOf: URL(fileURLWithPath: path))
        return try RlottieAnimation(jsonData: data, resourcePath: URL(fileURLWithPath: path).deletingLastPathComponent().path,
                                    cacheKey: cacheKey, source: SharedCorpus.name(path))
    }

    /// An override of `property` at the rlottie keypath `keypath` (also taken as its source).
    static func override(_ keypath: String, _ property: RlottieProperty, _ value: LottieValue) -> RlottieOverride {
        RlottieOverride(target: RlottieOverrideTarget(keypath: keypath, property: property, source: AnimationKeypath(keypath)),
                        value: value)
    }

    static func color(_ r: Double, _ g: Double, _ b: Double) -> LottieValue { .color(LottieColor(r: r, g: g, b: b)) }

    /// The JSON's top-level numbers, read independently of rlottie.
    static func header(_ path: String) throws -> (w: Double, h: Double, fr: Double, ip: Double, op: Double) {
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path)))
        let top = try #require(object as? [String: Any])
        func number(_ key: String) throws -> Double { try #require((top[key] as? NSNumber)?.doubleValue, "\(key)") }
        return (try number("w"), try number("h"), try number("fr"), try number("ip"), try number("op"))
    }

    /// Every animation loads, reports the JSON's size, frame rate and frame count, and draws
    /// something at 256×256 (at its middle frame, or at another when the middle is blank).
    @Test(.enabled(if: SharedCorpus.available("lottie"), "needs ../shared/corpus")) func corpusLoadsAndRenders() throws {
        let files = try Self.corpusFiles()
        var blankAtMiddle: [String] = []
        for path in files {
            let name = SharedCorpus.name(path)
            let animation = try Self.load(path)
            let json = try Self.header(path)
            #expect(animation.width == Int(json.w) && animation.height == Int(json.h), "\(name): size")
            #expect(abs(animation.frameRate - json.fr) < 1e-3, "\(name): frame rate \(animation.frameRate) vs \(json.fr)")
            let frames = json.op - json.ip
            #expect(abs(Double(animation.totalFrames) - frames) <= 1, "\(name): \(animation.totalFrames) frames vs op−ip \(frames)")
            #expect(abs(animation.duration - Double(animation.totalFrames - 1) / animation.frameRate) < 0.05,
                    "\(name): duration \(animation.duration)")
            if animation.totalFrames != Int(frames.rounded()) {
                print("\(name): rlottie reports \(animation.totalFrames) frames for op−ip = \(frames)")
            }
            let middle = animation.totalFrames / 2
            var image = try animation.render(frame: middle, width: 256, height: 256)
            if !image.contains(where: { $0 >> 24 != 0 }) {
                blankAtMiddle.append("\(name)@\(middle)")
                var found = false
                for frame in stride(from: 0, to: animation.totalFrames, by: max(1, animation.totalFrames / 16)) {
                    image = try animation.render(frame: frame, width: 256, height: 256)
                    if image.contains(where: { $0 >> 24 != 0 }) { found = true; break }
                }
                #expect(found, "\(name): no visible pixel at any sampled frame")
            }
        }
        if !blankAtMiddle.isEmpty { print("blank at the middle frame (visible elsewhere): \(blankAtMiddle)") }
    }

    /// Markers come through with their names and frames.
    @Test(.enabled(if: SharedCorpus.available("lottie/TwitterHeartButton.json"), "needs ../shared/corpus")) func markers() throws {
        let path = try Self.corpusFile("TwitterHeartButton.json")
        let animation = try Self.load(path)
        let object = try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: path))) as? [String: Any]
        let jsonMarkers = try #require(object?["markers"] as? [[String: Any]])
        #expect(animation.markers.count == jsonMarkers.count)
        for (marker, json) in zip(animation.markers, jsonMarkers) {
            #expect(marker.name == json["cm"] as? String)
            let start = (json["tm"] as? NSNumber)?.doubleValue ?? -1
            #expect(abs(Double(marker.startFrame) - start) <= 1, "\(marker)")
        }
    }

    static func isClose(_ a: RGBA8, _ b: RGBA8, _ tolerance: Int) -> Bool {
        abs(Int(a.r) - Int(b.r)) <= tolerance && abs(Int(a.g) - Int(b.g)) <= tolerance
            && abs(Int(a.b) - Int(b.b)) <= tolerance && abs(Int(a.a) - Int(b.a)) <= tolerance
    }

    /// `**.Fill 1` in Switch.json names the white background fill and the teal switch fill
    /// (0, 0.65, 0.6 before frame 22); the checkmark's `Stroke 1` has the same teal. Recolored to
    /// pure green, every opaque white or teal pixel the stroke does not cover turns green, pixels
    /// fully covered by the stroke keep their teal, transparent pixels stay transparent, and
    /// clearing the override restores the frame. Rendering frame 10 at the same size before and
    /// after the override is also the case rlottie's frame cache gets wrong by itself.
    @Test(.enabled(if: SharedCorpus.available("lottie/Switch.json"), "needs ../shared/corpus")) func recolorSwitchFill() throws {
        let path = try Self.corpusFile("Switch.json")
        let animation = try Self.load(path)
        let size = 256
        let before = ARGB32Image(width: size, height: size, pixels: try animation.render(frame: 10, width: size, height: size))
        try animation.apply(Self.override("**.Fill 1", .fillColor, Self.color(0, 1, 0)))
        let after = ARGB32Image(width: size, height: size, pixels: try animation.render(frame: 10, width: size, height: size))
        let changed = zip(before.pixels, after.pixels).filter { $0 != $1 }.count
        #expect(changed > 0, "the override must show on the frame rendered just before it")
        // Where the strokes are: the same frame with every stroke blue.
        let strokeProbe = try Self.load(path)
        try strokeProbe.apply(Self.override("**.Stroke 1", .strokeColor, Self.color(0, 0, 1)))
        let strokes = ARGB32Image(width: size, height: size, pixels: try strokeProbe.render(frame: 10, width: size, height: size))

        let teal = RGBA8(r: 0, g: 166, b: 153, a: 255)
        let white = RGBA8(r: 255, g: 255, b: 255, a: 255)
        let green = RGBA8(r: 0, g: 255, b: 0, a: 255)
        let blue = RGBA8(r: 0, g: 0, b: 255, a: 255)
        var recolored = 0
        var stroked = 0
        var transparent = 0
        var mismatches: [String] = []
        for y in 0..<size {
            for x in 0..<size {
                let old = before.rgba(x: x, y: y)
                let new = after.rgba(x: x, y: y)
                let stroke = strokes.rgba(x: x, y: y)
                if old.a == 0 {
                    if new.a != 0 { mismatches.append("(\(x), \(y)) was transparent, now \(new)") }
                    transparent += 1
                } else if Self.isClose(stroke, blue, 0) {
                    if new != old { mismatches.append("(\(x), \(y)) under the stroke was \(old), now \(new)") }
                    stroked += 1
                } else if stroke == old, old.a == 255, Self.isClose(old, teal, 2) || Self.isClose(old, white, 0) {
                    if !Self.isClose(new, green, 1) { mismatches.append("(\(x), \(y)) was \(old), now \(new)") }
                    recolored += 1
                }
            }
        }
        #expect(mismatches.isEmpty, "\(mismatches.count) pixels wrong, first: \(mismatches.prefix(3))")
        #expect(recolored > size * size / 4, "fill pixels recolored: \(recolored)")
        #expect(stroked > 100, "pixels fully under the stroke: \(stroked)")
        #expect(transparent > 0)
        print("Switch frame 10 at \(size)²: \(recolored) fill pixels recolored, \(stroked) stroke pixels unchanged, \(transparent) transparent")

        try animation.clearOverrides()
        let restored = try animation.render(frame: 10, width: size, height: size)
        #expect(zip(restored, before.pixels).allSatisfy { $0 == $1 }, "clearing overrides restores the original frame")
    }

    /// The stale-frame case in every order: the same frame and size right after an override, a
    /// second override of the same keypath, and a size change.
    @Test(.enabled(if: SharedCorpus.available("lottie/Switch.json"), "needs ../shared/corpus")) func overrideAfterSameFrameIsNotStale() throws {
        let path = try Self.corpusFile("Switch.json")
        let animation = try Self.load(path, cacheKey: "render-tests-switch")
        func greenCount(_ pixels: [UInt32]) -> Int {
            pixels.reduce(0) { count, pixel in
                let value = ARGB32Image.unpremultiply(pixel)
                return count + (value.a == 255 && value.g > 250 && value.r < 5 && value.b < 5 ? 1 : 0)
            }
        }
        func redCount(_ pixels: [UInt32]) -> Int {
            pixels.reduce(0) { count, pixel in
                let value = ARGB32Image.unpremultiply(pixel)
                return count + (value.a == 255 && value.r > 250 && value.g < 5 && value.b < 5 ? 1 : 0)
            }
        }
        let plain = try animation.render(frame: 10, width: 128, height: 128)
        #expect(greenCount(plain) == 0 && redCount(plain) == 0)
        try animation.apply(Self.override("**.Fill 1", .fillColor, Self.color(0, 1, 0)))
        #expect(greenCount(try animation.render(frame: 10, width: 128, height: 128)) > 1000)
        try animation.apply(Self.override("**.Fill 1", .fillColor, Self.color(1, 0, 0)))
        let red = try animation.render(frame: 10, width: 128, height: 128)
        #expect(redCount(red) > 1000 && greenCount(red) == 0)
        try animation.apply(Self.override("**.Fill 1", .fillColor, Self.color(0, 1, 0)))
        #expect(greenCount(try animation.render(frame: 10, width: 64, height: 64)) > 250)
        try animation.clearOverrides()
        let cleared = try animation.render(frame: 10, width: 128, height: 128) == plain
        #expect(cleared, "clearing overrides restores the original frame")
        // A second object under the same cache key starts without the first one's overrides.
        try animation.apply(Self.override("**.Fill 1", .fillColor, Self.color(0, 1, 0)))
        let twin = try Self.load(path, cacheKey: "render-tests-switch")
        let twinIsPlain = try twin.render(frame: 10, width: 128, height: 128) == plain
        #expect(twinIsPlain, "overrides stay with their object, not with the cached model")
    }

    /// Out-of-range values and bad keypaths are refused before they reach rlottie.
    @Test(.enabled(if: SharedCorpus.available("lottie/Switch.json"), "needs ../shared/corpus")) func invalidOverridesAreRefused() throws {
        let path = try Self.corpusFile("Switch.json")
        let animation = try Self.load(path)
        #expect(throws: RlottieError.self) { try animation.apply(Self.override("**.Fill 1", .fillColor, Self.color(2, 0, 0))) }
        #expect(throws: RlottieError.invalidProperty(keypath: "**.Fill 1", property: .fillOpacity, value: .number(101),
                                                     reason: "opacity must be in 0...100")) {
            try animation.apply(Self.override("**.Fill 1", .fillOpacity, .number(101)))
        }
        let description = RlottieError.invalidProperty(keypath: "**.Fill 1", property: .fillOpacity, value: .number(101),
                                                       reason: "opacity must be in 0...100").description
        #expect(description == "override fillOpacity = 101.0 at '**.Fill 1': opacity must be in 0...100", "\(description)")
        // A value of another type than the property takes is refused, not sent.
        #expect(throws: RlottieError.invalidProperty(keypath: "**.Fill 1", property: .fillColor, value: .number(1),
                                                     reason: "fillColor takes a color, not a number")) {
            try animation.apply(Self.override("**.Fill 1", .fillColor, .number(1)))
        }
        #expect(throws: RlottieError.self) { try animation.apply(Self.override("**", .strokeWidth, .number(-1))) }
        #expect(throws: RlottieError.self) { try animation.apply(Self.override("**", .transformRotation, .number(.nan))) }
        #expect(throws: RlottieError.self) { try animation.apply(Self.override("", .fillOpacity, .number(50))) }
        #expect(animation.overrides.isEmpty)
        #expect(throws: RlottieError.self) { _ = try RlottieAnimation(jsonData: Array("{\"nope\"".utf8)) }
        #expect(throws: RlottieError.self) { _ = try RlottieAnimation(jsonData: [UInt8]()) }
    }

    /// Dynamic properties resolved against the model go to the renderer as they come: the
    /// lottie-ios keypath `**.Fill 1.Color` resolved on Switch.json and applied with
    /// `setOverrides` draws exactly what the rlottie keypath `**.Fill 1` does, and a second
    /// `setOverrides` replaces the first list.
    @Test(.enabled(if: SharedCorpus.available("lottie/Switch.json"), "needs ../shared/corpus")) func resolvedOverridesApplyAsTheyCome() throws {
        let path = try Self.corpusFile("Switch.json")
        let model = try LottieAnimation.load(path: path)
        var properties = LottieDynamicProperties()
        properties.setValue(Self.color(0, 1, 0), keypath: "**.Fill 1.Color")
        let resolved = try properties.resolve(in: model)
        let overrides = resolved.overrides(atFrame: 10)
        #expect(overrides.count == 2)

        let animation = try Self.load(path)
        try animation.setOverrides(overrides)
        #expect(animation.overrides == overrides)
        let viaModel = try animation.render(frame: 10, width: 128, height: 128)
        let direct = try Self.load(path)
        try direct.apply(Self.override("**.Fill 1", .fillColor, Self.color(0, 1, 0)))
        let same = try direct.render(frame: 10, width: 128, height: 128) == viaModel
        #expect(same, "the resolved overrides draw what the direct rlottie override draws")

        try animation.setOverrides([])
        #expect(animation.overrides.isEmpty)
        let plain = try animation.render(frame: 10, width: 128, height: 128)
        let fresh = try Self.load(path).render(frame: 10, width: 128, height: 128)
        #expect(plain == fresh, "an empty list clears the earlier overrides")
    }

    /// Non-zero-alpha bounding box: (minX, minY, maxX, maxY), or nil when nothing is visible.
    static func bounds(_ image: ARGB32Image) -> (Int, Int, Int, Int)? {
        var box: (Int, Int, Int, Int)?
        for y in 0..<image.height {
            for x in 0..<image.width where image[x, y] >> 24 != 0 {
                box = box.map { (min($0.0, x), min($0.1, y), max($0.2, x), max($0.3, y)) } ?? (x, y, x, y)
            }
        }
        return box
    }

    /// aspectFit letterboxes a square composition left and right on a 2:1 canvas and draws the
    /// native-size frame in the middle; aspectFill crops the middle rows of the doubled frame;
    /// scaleFill stretches horizontally only.
    @Test(.enabled(if: SharedCorpus.available("lottie/Switch.json") && SharedCorpus.available("lottie/LottieLogo1.json"), "needs ../shared/corpus")) func contentModes() throws {
        let path = try Self.corpusFile("Switch.json")
        let renderer = LottieRenderer(animation: try Self.load(path))
        let frame = 30
        let native = try renderer.render(frame: frame, width: 100, height: 100)
        let doubled = try renderer.render(frame: frame, width: 200, height: 200)

        let fit = try renderer.render(frame: frame, width: 200, height: 100, contentMode: .aspectFit)
        for y in 0..<100 {
            for x in 0..<50 {
                #expect(fit[x, y] == 0 && fit[x + 150, y] == 0, "letterbox at row \(y)")
            }
            #expect(Array(fit.pixels[y * 200 + 50..<y * 200 + 150]) == Array(native.pixels[y * 100..<(y + 1) * 100]),
                    "aspectFit row \(y) differs from the native render")
        }
        #expect(fit.visiblePixelCount > 1000)
        let placement = LottiePlacement(compositionWidth: 100, compositionHeight: 100, canvasWidth: 200, canvasHeight: 100,
                                        mode: .aspectFit)
        #expect(placement == LottiePlacement(compositionWidth: 1, compositionHeight: 1, canvasWidth: 2, canvasHeight: 1,
                                             mode: .aspectFit).scaled(by: 100))

        let fill = try renderer.render(frame: frame, width: 200, height: 100, contentMode: .aspectFill)
        let cropped = fill.pixels == Array(doubled.pixels[50 * 200..<150 * 200])
        #expect(cropped, "aspectFill is the middle of the doubled frame")

        let stretched = try renderer.render(frame: frame, width: 200, height: 100, contentMode: .scaleFill)
        let nativeBox = try #require(Self.bounds(native))
        let stretchedBox = try #require(Self.bounds(stretched))
        #expect(abs(stretchedBox.0 - 2 * nativeBox.0) <= 1 && abs(stretchedBox.2 - (2 * nativeBox.2 + 1)) <= 1,
                "scaleFill x extent \(stretchedBox) vs native \(nativeBox)")
        #expect(abs(stretchedBox.1 - nativeBox.1) <= 1 && abs(stretchedBox.3 - nativeBox.3) <= 1,
                "scaleFill y extent \(stretchedBox) vs native \(nativeBox)")
        // Each scaleFill pixel is the average of the doubled frame's two rows above it.
        for y in stride(from: 0, to: 100, by: 7) {
            for x in stride(from: 0, to: 200, by: 5) {
                let top = doubled[x, 2 * y] >> 24
                let bottom = doubled[x, 2 * y + 1] >> 24
                let expected = (Int(top) + Int(bottom) + 1) / 2
                #expect(abs(Int(stretched[x, y] >> 24) - expected) <= 1, "alpha at (\(x), \(y))")
            }
        }
        // A tall composition filling a square canvas leaves no transparent edge column (within
        // 2%: rlottie's antialiased edge is not exactly linear coverage).
        do {
            let logo = try Self.corpusFile("LottieLogo1.json")
            let tallRenderer = LottieRenderer(animation: try Self.load(logo))
            for mode in [LottieContentMode.aspectFill, .scaleFill] {
                let image = try tallRenderer.render(frame: 0, width: 256, height: 256, contentMode: mode)
                let edges = (0..<256).map { image[0, $0] >> 24 } + (0..<256).map { image[255, $0] >> 24 }
                let bare = edges.filter { $0 < 250 }
                #expect(bare.isEmpty, "\(mode): the opaque background reaches both sides; \(bare.count) edge pixels not opaque: \(bare.prefix(8))")
            }
        }
        // A tall canvas letterboxes top and bottom.
        let tall = try renderer.render(frame: frame, width: 50, height: 100, contentMode: .aspectFit)
        for x in 0..<50 { #expect(tall[x, 0] == 0 && tall[x, 99] == 0 && tall[x, 24] == 0 && tall[x, 75] == 0) }
    }

    /// A written PNG reads back with the same straight RGBA bytes; the write leaves no temporary
    /// file; a failing write names its path.
    @Test(.enabled(if: SharedCorpus.available("lottie/LottieLogo1.json"), "needs ../shared/corpus")) func pngRoundTrip() throws {
        let path = try Self.corpusFile("LottieLogo1.json")
        let renderer = LottieRenderer(animation: try Self.load(path))
        let image = try renderer.render(frame: 60, width: 180, height: 256)
        #expect(image.visiblePixelCount > 0)
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("render-png-\(getpid())-\(UInt32.random(in: 0...UInt32.max))")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let file = folder.appendingPathComponent("frame.png").path
        try PNGWriter.write(image, to: file)
        try PNGWriter.write(image, to: file)  // replacing an existing file
        let back = try PNGWriter.readRGBA(from: file)
        #expect(back.width == 180 && back.height == 256)
        #expect(back.rgba == image.unpremultipliedRGBA())
        let reread = try PNGWriter.readImage(from: file)
        for (a, b) in zip(reread.pixels, image.pixels) where a != b {
            // Premultiplying the straight bytes again can be off by one per channel.
            let x = ARGB32Image.unpremultiply(a)
            let y = ARGB32Image.unpremultiply(b)
            #expect(a >> 24 == b >> 24 && Self.isClose(x, y, 3), "\(x) vs \(y)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: folder.path) == ["frame.png"])

        let missing = folder.appendingPathComponent("no/such/dir/out.png").path
        do {
            try PNGWriter.write(image, to: missing)
            Issue.record("write into a missing folder succeeded")
        } catch let error as PNGError {
            #expect(error.description.contains(missing), "\(error)")
        }
        do {
            _ = try PNGWriter.readRGBA(from: path)
            Issue.record("reading JSON as PNG succeeded")
        } catch let error as PNGError {
            #expect(error.description.contains(path), "\(error)")
        }
    }

    /// Render times at 256×256 and 1920×1080 (printed, not asserted: the machine is shared).
    @Test(.enabled(if: SharedCorpus.available("lottie"), "needs ../shared/corpus")) func renderTimes() throws {
        let files = try Self.corpusFiles()
        for name in ["LottieLogo1.json", "gradient_shapes.json", "MotionCorpse_Jrcanest.json"] {
            guard let path = files.first(where: { $0.hasSuffix("/" + name) }) else { continue }
            let renderer = LottieRenderer(animation: try Self.load(path))
            let frames = renderer.animation.totalFrames
            for (w, h) in [(256, 256), (1920, 1080)] {
                var canvas = ARGB32Image(width: w, height: h)
                let count = 10
                let clock = ContinuousClock()
                let elapsed = try clock.measure {
                    for k in 0..<count { try renderer.render(frame: k * frames / count, into: &canvas) }
                }
                let ms = Double(elapsed.components.attoseconds) / 1e15 / Double(count) + Double(elapsed.components.seconds) * 1e3 / Double(count)
                print("render \(name) \(w)×\(h): \(String(format: "%.2f", ms)) ms per frame")
            }
        }
    }
}

extension LottiePlacement {
    func scaled(by factor: Double) -> LottiePlacement {
        var copy = self
        copy.x *= factor
        copy.y *= factor
        copy.width *= factor
        copy.height *= factor
        return copy
    }
}

extension ARGB32Image {
    func contains(where predicate: (UInt32) -> Bool) -> Bool { pixels.contains(where: predicate) }
}
