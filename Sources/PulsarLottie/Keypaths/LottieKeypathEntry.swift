import PulsarCore

/// One concrete keypath of an animation's hierarchy and what it addresses.
///
/// A plain value type: safe to use from any thread.
public struct LottieKeypathEntry: Hashable, Sendable, CustomStringConvertible {
    /// What a keypath ends at.
    public enum Kind: Hashable, Sendable {
        /// A layer (of a composition or a precomposition).
        case layer(LottieLayer.Kind)
        /// A shape item: a group, fill, stroke, path, trim paths...
        case shapeItem(LottieShapeItem.Kind)
        /// A `Transform` node of a layer or a shape group.
        case transform(LottieTransformOwner)
        /// A property.
        case property(LottieProperty)
    }

    /// The names from the top-level layer down; no wildcards.
    public let keypath: AnimationKeypath
    public let kind: Kind

    public init(keypath: AnimationKeypath, kind: Kind) {
        self.keypath = keypath
        self.kind = kind
    }

    /// The property, when the keypath ends at one.
    public var property: LottieProperty? {
        if case .property(let property) = kind { return property }
        return nil
    }

    /// True when `rlottieTarget()` succeeds.
    public var isApplicableByRlottie: Bool {
        (try? rlottieTarget()) != nil
    }

    /// Where rlottie applies this property: rlottie's keypath ends at the item that owns the
    /// property (`"Layer.Group 1.Fill 1"` for `"Layer.Group 1.Fill 1.Color"`, and
    /// `"Layer.Group 1"` for `"Layer.Group 1.Transform.Position"`) and the property is named
    /// separately.
    ///
    /// Throws `LottieKeypathError` with rule `notAProperty` when the keypath ends at a layer,
    /// item or transform node; `unsupportedByRlottie` for what rlottie does not apply
    /// (transforms of layers, anchor point, transform opacity, properties other than fill and
    /// stroke colour, opacity and width); `unaddressableName` when a name holds a `.` (rlottie
    /// would split it).
    public func rlottieTarget() throws(LottieKeypathError) -> RlottieOverrideTarget {
        guard let property else {
            throw LottieKeypathError(.notAProperty, keypath: keypath.string,
                                     message: "it addresses \(kindDescription), not a property; add one (Color, Opacity, Stroke Width, Transform.Position ...)")
        }
        let owner: [String]
        let target: RlottieProperty
        switch property {
        case .fillColor: (owner, target) = (Array(keypath.components.dropLast()), .fillColor)
        case .fillOpacity: (owner, target) = (Array(keypath.components.dropLast()), .fillOpacity)
        case .strokeColor: (owner, target) = (Array(keypath.components.dropLast()), .strokeColor)
        case .strokeOpacity: (owner, target) = (Array(keypath.components.dropLast()), .strokeOpacity)
        case .strokeWidth: (owner, target) = (Array(keypath.components.dropLast()), .strokeWidth)
        case .transform(let transformProperty, let transformOwner):
            target = try transformTarget(transformProperty, of: transformOwner)
            owner = Array(keypath.components.dropLast(2))
        case .other(let name, let itemKind):
            throw LottieKeypathError(.unsupportedByRlottie, keypath: keypath.string,
                                     message: "rlottie has no override for \(name) of a \(itemKind); it overrides fill and stroke color and opacity, stroke width, and shape-group position, scale and rotation")
        }
        if let bad = owner.first(where: { $0.contains(".") }) {
            throw LottieKeypathError(.unaddressableName, keypath: keypath.string,
                                     message: "the name \(MessageText.quoted(bad)) holds a '.', which rlottie's keypaths cannot express")
        }
        return RlottieOverrideTarget(keypath: owner.joined(separator: "."), property: target, source: keypath)
    }

    /// The rlottie property for `property` of `owner`'s transform.
    ///
    /// Throws `unsupportedByRlottie` for opacity and anchor point (rlottie ignores their
    /// overrides on layers and groups alike) and for any property of a layer's own transform
    /// (rlottie ignores overrides there too).
    private func transformTarget(_ property: LottieTransformProperty,
                                 of owner: LottieTransformOwner) throws(LottieKeypathError) -> RlottieProperty {
        let target: RlottieProperty
        switch property {
        case .opacity:
            throw LottieKeypathError(.unsupportedByRlottie, keypath: keypath.string,
                                     message: "rlottie does not apply transform opacity: setting it would do nothing; set a fill's or stroke's Opacity (…Fill 1.Opacity)")
        case .anchorPoint:
            throw LottieKeypathError(.unsupportedByRlottie, keypath: keypath.string,
                                     message: "rlottie does not apply transform anchor point: setting it would do nothing; move a shape group with its Transform.Position")
        case .position: target = .transformPosition
        case .scale: target = .transformScale
        case .rotation: target = .transformRotation
        }
        guard owner == .group else {
            throw LottieKeypathError(.unsupportedByRlottie, keypath: keypath.string,
                                     message: "rlottie does not apply a layer's own transform: setting it would do nothing; position, scale and rotation apply to shape groups (LAYER.GROUP.Transform.\(property.rawValue))")
        }
        return target
    }

    private var kindDescription: String {
        switch kind {
        case .layer(let kind): return "a layer (\(kind))"
        case .shapeItem(let kind): return "a shape item (\(kind))"
        case .transform(let owner): return "the transform of a \(owner)"
        case .property(let property): return "\(property)"
        }
    }

    public var description: String { "\(keypath.string) (\(kindDescription))" }
}
