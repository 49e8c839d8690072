import PulsarLottie
import PulsarTestSupport
import Testing

/// lottie-ios keypaths: wildcard semantics, the rlottie translation and its refusals, and
/// dynamic-property values per frame.
@Suite struct LottieKeypathTests {
    /// Layer "L" (shape): group "G" → group "H" → "Fill 1" and "Stroke 1", each group with a
    /// transform; a top-level "Fill 1" beside G; a rectangle "Rect". Layer "M" (null).
    static let nested: LottieAnimation = {
        let layers = """
        [{"ty":4,"nm":"L","ind":1,"shapes":[
           {"ty":"gr","nm":"G","it":[
             {"ty":"gr","nm":"H","it":[
               {"ty":"fl","nm":"Fill 1"},{"ty":"st","nm":"Stroke 1"},{"ty":"tr","nm":"Transform"}]},
             {"ty":"rc","nm":"Rect"},
             {"ty":"tr","nm":"Transformieren"}]},
           {"ty":"fl","nm":"Fill 1"}]},
         {"ty":3,"nm":"M","ind":2}]
        """
        return try! LottieAnimation(json: LottieFixtures.document(layers: layers), source: "nested.json")
    }()

    static func strings(_ entries: [LottieKeypathEntry]) -> [String] { entries.map(\.keypath.string) }

    @Test func singleAndAnyDepthWildcards() {
        let a = Self.nested
        #expect(Self.strings(a.keypaths(matching: "*")) == ["L", "M"])
        #expect(Self.strings(a.keypaths(matching: "L.*.Fill 1.Color")).isEmpty)
        #expect(Self.strings(a.keypaths(matching: "L.*.*.Fill 1.Color")) == ["L.G.H.Fill 1.Color"])
        #expect(Self.strings(a.keypaths(matching: "L.**.Fill 1.Color")) == ["L.G.H.Fill 1.Color", "L.Fill 1.Color"])
        // `**` also matches zero levels.
        #expect(Self.strings(a.keypaths(matching: "**.L")) == ["L"])
        #expect(Self.strings(a.keypaths(matching: "L.**")).first == "L")
        #expect(Self.strings(a.keypaths(matching: "**.Fill 1.Color")) == ["L.G.H.Fill 1.Color", "L.Fill 1.Color"])
        #expect(Self.strings(a.keypaths(matching: "L.G.*")) == ["L.G.H", "L.G.Rect", "L.G.Transform"])
        // Case-sensitive, whole-component names.
        #expect(a.keypaths(matching: "**.fill 1.Color").isEmpty)
        #expect(a.keypaths(matching: "**.Fill.Color").isEmpty)
        // A group's tr is "Transform" whatever its nm.
        #expect(Self.strings(a.keypaths(matching: "L.G.Transform.Position")) == ["L.G.Transform.Position"])
        #expect(a.keypaths(matching: "**.Transformieren").isEmpty)
    }

    @Test func kindsOfMatches() throws {
        let a = Self.nested
        let kinds = Dictionary(uniqueKeysWithValues: a.keypathEntries.map { ($0.keypath.string, $0.kind) })
        #expect(kinds["L"] == .layer(.shape))
        #expect(kinds["M"] == .layer(.null))
        #expect(kinds["L.G"] == .shapeItem(.group))
        #expect(kinds["L.Transform"] == .transform(.layer))
        #expect(kinds["L.Transform.Rotation"] == .property(.transform(.rotation, of: .layer)))
        #expect(kinds["L.G.H.Transform.Scale"] == .property(.transform(.scale, of: .group)))
        #expect(kinds["L.G.H.Fill 1.Opacity"] == .property(.fillOpacity))
        #expect(kinds["L.G.H.Stroke 1.Color"] == .property(.strokeColor))
        #expect(kinds["L.G.H.Stroke 1.Opacity"] == .property(.strokeOpacity))
        #expect(kinds["L.G.H.Stroke 1.Stroke Width"] == .property(.strokeWidth))
        #expect(kinds["L.G.Rect.Size"] == .property(.other(name: "Size", owner: .rectangle)))
        #expect(kinds["M.Transform.Anchor Point"] == .property(.transform(.anchorPoint, of: .layer)))
    }

    @Test(.enabled(if: SharedCorpus.available("lottie/Switch.json"), "needs ../shared/corpus"))
    func switchFillColorsTranslateToRlottieFillKeypaths() throws {
        let path = try LottieFixtures.corpusFile("Switch.json")
        let animation = try LottieAnimation.load(path: path)
        let matches = animation.keypaths(matching: "**.Fill 1.Color")
        #expect(Self.strings(matches) == ["White BG Outlines.Group 1.Fill 1.Color", "Switch Outline Outlines.Fill 1.Color"])
        #expect(matches.allSatisfy { $0.kind == .property(.fillColor) && $0.isApplicableByRlottie })
        let targets = try animation.rlottieTargets(for: "**.Fill 1.Color")
        #expect(targets.map(\.keypath) == ["White BG Outlines.Group 1.Fill 1", "Switch Outline Outlines.Fill 1"])
        #expect(targets.allSatisfy { $0.property == .fillColor })
        // The strokes of the three outline layers.
        let strokes = try animation.rlottieTargets(for: "**.Stroke 1.Stroke Width")
        #expect(strokes.map(\.keypath) == ["Checkmark Outlines 2.Group 1.Stroke 1", "X Outlines.Group 1.Stroke 1",
                                           "Checkmark Outlines.Group 1.Stroke 1"])
    }

    @Test func groupTransformsTranslateToTheGroup() throws {
        let a = Self.nested
        let position = try a.rlottieTargets(for: "L.G.Transform.Position")
        #expect(position == [RlottieOverrideTarget(keypath: "L.G", property: .transformPosition,
                                                   source: "L.G.Transform.Position")])
        #expect(try a.rlottieTargets(for: "**.H.Transform.Rotation").map(\.description) == ["L.G.H [transformRotation]"])
        #expect(try a.rlottieTargets(for: "**.Transform.Scale", skipUnsupported: true).map(\.keypath) == ["L.G.H", "L.G"])
    }

    @Test func refusalsNameTheKeypathAndTheRule() {
        let a = Self.nested
        func refusal(_ keypath: AnimationKeypath, skip: Bool = false) -> LottieKeypathError? {
            do {
                _ = try a.rlottieTargets(for: keypath, skipUnsupported: skip)
                return nil
            } catch {
                return error
            }
        }
        let layer = refusal("L.Transform.Position")
        #expect(layer?.rule == .unsupportedByRlottie)
        #expect(layer?.keypath == "L.Transform.Position")
        #expect(layer?.description.contains("a layer's own transform: setting it would do nothing; position, scale and rotation apply to shape groups") == true)
        #expect(refusal("L.G.Transform.Anchor Point")?.rule == .unsupportedByRlottie)
        #expect(refusal("L.G.Transform.Anchor Point")?.description
            .contains("rlottie does not apply transform anchor point: setting it would do nothing") == true)
        #expect(refusal("M.Transform.Anchor Point")?.description.contains("rlottie does not apply transform anchor point") == true)
        #expect(refusal("L.G.Rect.Size")?.rule == .unsupportedByRlottie)
        #expect(refusal("L.G")?.rule == .notAProperty)
        #expect(refusal("L.G.Transform")?.rule == .notAProperty)
        #expect(refusal("Nope.**")?.rule == .noMatch)
        #expect(refusal("L..G")?.rule == .malformedKeypath)
        // `**.Position` reaches layer transforms too: refused, unless unsupported matches are skipped.
        #expect(refusal("**.Position")?.rule == .unsupportedByRlottie)
        #expect(refusal("**.Position", skip: true) == nil)
        // Nothing usable left after skipping: still an error.
        #expect(refusal("M.**.Position", skip: true)?.rule == .unsupportedByRlottie)
    }

    /// Transform opacity is refused for what it is, on groups and layers alike and through
    /// wildcards: rlottie does not apply it, so it would do nothing.
    @Test func transformOpacityIsRefusedAsNotAppliedByRlottie() {
        for keypath in ["L.G.Transform.Opacity", "L.Transform.Opacity", "**.Transform.Opacity"] as [AnimationKeypath] {
            let refusal: LottieKeypathError?
            do {
                _ = try Self.nested.rlottieTargets(for: keypath)
                refusal = nil
            } catch {
                refusal = error
            }
            #expect(refusal?.rule == .unsupportedByRlottie, "\(keypath)")
            let text = refusal?.description ?? ""
            #expect(text.hasPrefix("\(refusal?.keypath ?? "?"): rlottie does not apply transform opacity"), "\(text)")
            #expect(text.contains("would do nothing") && !text.contains("only on shape groups"), "\(text)")
            if !keypath.hasWildcards { #expect(refusal?.keypath == keypath.string) }
        }
        let opacity = try? Self.nested.rlottieTargets(for: "**.Transform.Opacity", skipUnsupported: true)
        #expect(opacity == nil, "nothing usable: skipping leaves the refusal")
    }

    @Test func dynamicPropertiesGiveValuesPerFrame() throws {
        let a = Self.nested  // fr 30, ip 0, op 60
        var properties = LottieDynamicProperties()
        let green = try #require(LottieColor(hex: "#00FF00"))
        properties.setValueProvider(.constant(green), keypath: "**.Fill 1.Color")
        properties.setValueProvider(LottieValueProvider<Double>.interpolating(from: 100, to: 0), keypath: "L.G.H.Stroke 1.Opacity")
        properties.setValueProvider(LottieValueProvider<Double>.block { $0.frame.value * 2 }, keypath: "**.H.Transform.Rotation")
        let resolved = try properties.resolve(in: a)
        #expect(resolved.targets.map(\.description) == ["L.G.H.Fill 1 [fillColor]", "L.Fill 1 [fillColor]",
                                                        "L.G.H.Stroke 1 [strokeOpacity]", "L.G.H [transformRotation]"])
        let at15 = resolved.overrides(atFrame: 15)
        #expect(at15.map(\.value) == [.color(green), .color(green), .number(75), .number(30)])
        #expect(resolved.overrides(atFrame: 60)[2].value == .number(0))
        #expect(resolved.overrides(atFrame: -5)[2].value == .number(100))

        // A later binding of the same target wins, in place of the earlier one.
        let red = try #require(LottieColor(hex: "#FF0000"))
        properties.setValueProvider(.constant(red), keypath: "L.Fill 1.Color")
        let later = try properties.resolve(in: a).overrides(atFrame: 0)
        #expect(later.filter { $0.keypath == "L.Fill 1" }.map(\.value) == [.color(red)])
        #expect(later.count == 4)
    }

    @Test func valueTypesMustFitTheProperty() {
        var properties = LottieDynamicProperties()
        properties.setValueProvider(LottieValueProvider<Double>.constant(1), keypath: "**.Fill 1.Color")
        #expect {
            try properties.resolve(in: Self.nested)
        } throws: { error in
            (error as? LottieKeypathError)?.rule == .valueTypeMismatch
        }
        properties.setValue(.point(LottiePoint(x: 10, y: 20)), keypath: "L.G.Transform.Position")
        properties.removeValueProvider(keypath: "**.Fill 1.Color")
        #expect((try? properties.resolve(in: Self.nested))?.overrides(atFrame: 0).map(\.value) == [.point(LottiePoint(x: 10, y: 20))])
    }

    @Test func colorsAndValuesParse() throws {
        let c = try #require(LottieColor(hex: "#FF800040"))
        #expect(c.r == 1 && abs(c.g - 128.0 / 255) < 1e-12 && c.b == 0 && abs(c.a - 64.0 / 255) < 1e-12)
        #expect(LottieColor(hex: "00ff00") == LottieColor(r: 0, g: 1, b: 0))
        #expect(LottieColor(hex: "#12345") == nil && LottieColor(hex: "#GG0000") == nil && LottieColor(hex: "#+12345") == nil)
        #expect(LottieColor(r: 1, g: 0.5, b: 0).hex == "#FF8000FF")
        #expect(LottieValue.parse("#00FF00", as: .color) == .color(LottieColor(r: 0, g: 1, b: 0)))
        #expect(LottieValue.parse(" 12.5 ", as: .number) == .number(12.5))
        #expect(LottieValue.parse("3, -4", as: .point) == .point(LottiePoint(x: 3, y: -4)))
        #expect(LottieValue.parse("nan", as: .number) == nil && LottieValue.parse("1", as: .point) == nil)
        let mid = LottieColor(r: 0, g: 0, b: 0, a: 0).interpolated(to: LottieColor(r: 1, g: 0.5, b: 0.25, a: 1), amount: 0.5)
        #expect(mid == LottieColor(r: 0.5, g: 0.25, b: 0.125, a: 0.5))
    }
}
