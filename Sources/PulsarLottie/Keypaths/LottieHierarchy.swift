/// Builds the list of every concrete keypath of a layer tree, in lottie-ios's naming: layer
/// names, then `Transform` with `Anchor Point`, `Position`, `Scale`, `Rotation`, `Opacity`;
/// shape items by `nm`; a group's transform as `GROUP.Transform.PROPERTY`; fill `Color` and
/// `Opacity`; stroke `Color`, `Opacity`, `Stroke Width`; the named properties of other items;
/// a precomposition's layers under the precomposition layer's name.
///
/// Contract: depth first in file order; an entry that repeats an earlier one (same names and
/// kind: siblings with equal names) is listed once. A group's `tr` item is always called
/// `Transform`, whatever its `nm` (exporters localize it).
enum LottieHierarchy {
    static func entries(of layers: [LottieLayer]) -> [LottieKeypathEntry] {
        var builder = Builder()
        for layer in layers { builder.add(layer, under: []) }
        return builder.entries
    }

    private struct Builder {
        var entries: [LottieKeypathEntry] = []
        var seen = Set<LottieKeypathEntry>()

        mutating func append(_ components: [String], _ kind: LottieKeypathEntry.Kind) {
            let entry = LottieKeypathEntry(keypath: AnimationKeypath(components: components), kind: kind)
            if seen.insert(entry).inserted { entries.append(entry) }
        }

        mutating func add(_ layer: LottieLayer, under prefix: [String]) {
            let path = prefix + [layer.name]
            append(path, .layer(layer.kind))
            addTransform(path, owner: .layer)
            for item in layer.shapes where item.kind != .transform { add(item, under: path) }
            for child in layer.layers { add(child, under: path) }
        }

        mutating func addTransform(_ owner: [String], owner kind: LottieTransformOwner) {
            let path = owner + ["Transform"]
            append(path, .transform(kind))
            for property in LottieTransformProperty.allCases {
                append(path + [property.rawValue], .property(.transform(property, of: kind)))
            }
        }

        mutating func add(_ item: LottieShapeItem, under prefix: [String]) {
            let path = prefix + [item.name]
            append(path, .shapeItem(item.kind))
            switch item.kind {
            case .group:
                for child in item.items where child.kind != .transform { add(child, under: path) }
                if item.items.contains(where: { $0.kind == .transform }) { addTransform(path, owner: .group) }
            case .fill:
                append(path + ["Color"], .property(.fillColor))
                append(path + ["Opacity"], .property(.fillOpacity))
            case .stroke:
                append(path + ["Color"], .property(.strokeColor))
                append(path + ["Opacity"], .property(.strokeOpacity))
                append(path + ["Stroke Width"], .property(.strokeWidth))
            default:
                for name in Self.otherProperties(of: item.kind) {
                    append(path + [name], .property(.other(name: name, owner: item.kind)))
                }
            }
        }

        static func otherProperties(of kind: LottieShapeItem.Kind) -> [String] {
            switch kind {
            case .gradientFill: return ["Opacity", "Start Point", "End Point", "Colors"]
            case .gradientStroke: return ["Opacity", "Start Point", "End Point", "Colors", "Stroke Width"]
            case .path: return ["Path"]
            case .rectangle: return ["Position", "Size", "Roundness"]
            case .ellipse: return ["Position", "Size"]
            case .star: return ["Position", "Rotation", "Points", "Outer Radius", "Outer Roundness",
                                "Inner Radius", "Inner Roundness"]
            case .trimPaths: return ["Start", "End", "Offset"]
            case .roundedCorners: return ["Radius"]
            case .repeater: return ["Copies", "Offset"]
            default: return []
            }
        }
    }
}
