import Foundation
import PulsarLottie
import PulsarTestSupport
import Testing

/// Every corpus animation loads with the timing, size and markers its JSON holds (read again
/// with Foundation), and its keypath listing agrees with an independent walk of the JSON.
@Suite(.enabled(if: SharedCorpus.available("lottie"), "needs ../shared/corpus"))
struct LottieCorpusTests {
    @Test func timingSizeAndMarkersMatchTheJSON() throws {
        let files = try LottieFixtures.corpusAnimations()
        for path in files {
            let name = SharedCorpus.name(path)
            let animation = try LottieAnimation.load(path: path)
            let json = try LottieFixtures.foundationObject(path)
            func number(_ key: String) -> Double? { (json[key] as? NSNumber)?.doubleValue }
            #expect(animation.timing.frameRate == number("fr"), "\(name): fr")
            #expect(animation.timing.inPoint.value == number("ip"), "\(name): ip")
            #expect(animation.timing.outPoint.value == number("op"), "\(name): op")
            #expect(animation.width == number("w") && animation.height == number("h"), "\(name): size")
            let fr = try #require(number("fr")), ip = try #require(number("ip")), op = try #require(number("op"))
            #expect(abs(animation.timing.durationSeconds - (op - ip) / fr) < 1e-12, "\(name): duration")
            #expect(animation.json == Array(try Data(contentsOf: URL(fileURLWithPath: path))), "\(name): bytes kept")

            let markers = json["markers"] as? [[String: Any]] ?? []
            #expect(animation.markers.count == markers.count, "\(name): marker count")
            for (marker, expected) in zip(animation.markers, markers) {
                let comment = expected["cm"] as? String
                var expectedName = comment ?? ""
                if let comment, let data = comment.data(using: .utf8),
                   let payload = try? JSONSerialization.jsonObject(with: data) as? [String: Any],
                   let payloadName = payload["name"] as? String {
                    expectedName = payloadName
                }
                #expect(marker.name == expectedName, "\(name): marker name")
                #expect(marker.comment == comment, "\(name): marker cm")
                #expect(marker.start.value == (expected["tm"] as? NSNumber)?.doubleValue ?? 0, "\(name): tm")
                #expect(marker.durationFrames == (expected["dr"] as? NSNumber)?.doubleValue ?? 0, "\(name): dr")
                #expect(animation.marker(named: marker.name) != nil, "\(name): lookup of \(marker.name)")
            }
            #expect(animation.warnings.isEmpty, "\(name): \(animation.warnings)")
        }
    }

    @Test func everyListedKeypathMatchesItself() throws {
        for path in try LottieFixtures.corpusAnimations() {
            let name = SharedCorpus.name(path)
            let animation = try LottieAnimation.load(path: path)
            let listed = animation.allHierarchyKeypaths()
            #expect(!listed.isEmpty, "\(name): no keypaths")
            for entry in animation.keypathEntries {
                #expect(entry.keypath.matches(entry.keypath), "\(name): \(entry.keypath)")
                // Parsing the listed string gives back the same keypath, and matching it finds the entry.
                let parsed = AnimationKeypath(entry.keypath.string)
                #expect(parsed == entry.keypath, "\(name): \(entry.keypath) round trip")
                #expect(animation.keypaths(matching: parsed).contains(entry), "\(name): \(entry.keypath)")
            }
            #expect(animation.keypaths(matching: "**").count == animation.keypathEntries.count, "\(name): **")
        }
    }

    /// The layer, fill and stroke keypaths equal those of an independent walk of the JSON with
    /// Foundation (precompositions expanded under their layer's name).
    @Test func keypathsAgreeWithAnIndependentWalk() throws {
        for path in try LottieFixtures.corpusAnimations() {
            let name = SharedCorpus.name(path)
            let json = try LottieFixtures.foundationObject(path)
            var assets: [String: [[String: Any]]] = [:]
            for asset in json["assets"] as? [[String: Any]] ?? [] {
                if let id = asset["id"] as? String, let layers = asset["layers"] as? [[String: Any]] { assets[id] = layers }
            }
            var layers = Set<String>(), fills = Set<String>(), strokes = Set<String>(), groupTransforms = Set<String>()
            func walkItems(_ items: [[String: Any]], _ prefix: String) {
                for item in items {
                    let path = prefix + "." + (item["nm"] as? String ?? "")
                    switch item["ty"] as? String {
                    case "fl": fills.insert(path + ".Color")
                    case "st": strokes.insert(path + ".Stroke Width")
                    case "gr":
                        let children = item["it"] as? [[String: Any]] ?? []
                        if children.contains(where: { $0["ty"] as? String == "tr" }) {
                            groupTransforms.insert(path + ".Transform.Position")
                        }
                        walkItems(children, path)
                    default: break
                    }
                }
            }
            func walkLayers(_ list: [[String: Any]], _ prefix: String) {
                for layer in list {
                    let path = (prefix.isEmpty ? "" : prefix + ".") + (layer["nm"] as? String ?? "")
                    layers.insert(path)
                    walkItems(layer["shapes"] as? [[String: Any]] ?? [], path)
                    if (layer["ty"] as? NSNumber)?.intValue == 0, let id = layer["refId"] as? String, let children = assets[id] {
                        walkLayers(children, path)
                    }
                }
            }
            walkLayers(json["layers"] as? [[String: Any]] ?? [], "")

            let animation = try LottieAnimation.load(path: path)
            func listed(_ keep: (LottieKeypathEntry.Kind) -> Bool) -> Set<String> {
                Set(animation.keypathEntries.filter { keep($0.kind) }.map(\.keypath.string))
            }
            #expect(listed { if case .layer = $0 { return true } else { return false } } == layers, "\(name): layers")
            #expect(listed { $0 == .property(.fillColor) } == fills, "\(name): fills")
            #expect(listed { $0 == .property(.strokeWidth) } == strokes, "\(name): strokes")
            #expect(listed { $0 == .property(.transform(.position, of: .group)) } == groupTransforms, "\(name): group transforms")
        }
    }
}
