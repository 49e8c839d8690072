/// What a keypath that ends at a property addresses, as the animation's tree defines it.
///
/// A plain value type: safe to use from any thread.
public enum LottieProperty: Hashable, Sendable, CustomStringConvertible {
    /// `Fill N.Color` of a solid fill (`fl`).
    case fillColor
    /// `Fill N.Opacity` of a solid fill.
    case fillOpacity
    /// `Stroke N.Color` of a solid stroke (`st`).
    case strokeColor
    /// `Stroke N.Opacity` of a solid stroke.
    case strokeOpacity
    /// `Stroke N.Stroke Width` of a solid stroke.
    case strokeWidth
    /// A property of a layer's or a shape group's `Transform`.
    case transform(LottieTransformProperty, of: LottieTransformOwner)
    /// Any other named property (`Path`, `Size`, `Start` of trim paths, a gradient's `Opacity`
    /// ...): listed for completeness, never overridable through rlottie. `owner` names the
    /// shape item kind it belongs to.
    case other(name: String, owner: LottieShapeItem.Kind)

    /// The name the property has as the last keypath component.
    public var name: String {
        switch self {
        case .fillColor, .strokeColor: return "Color"
        case .fillOpacity, .strokeOpacity: return "Opacity"
        case .strokeWidth: return "Stroke Width"
        case .transform(let property, _): return property.rawValue
        case .other(let name, _): return name
        }
    }

    /// The value type a provider for the property must yield (nil for `.other`).
    public var valueType: LottieValueType? {
        switch self {
        case .fillColor, .strokeColor: return .color
        case .fillOpacity, .strokeOpacity, .strokeWidth: return .number
        case .transform(let property, _):
            switch property {
            case .anchorPoint, .position, .scale: return .point
            case .rotation, .opacity: return .number
            }
        case .other: return nil
        }
    }

    public var description: String {
        switch self {
        case .fillColor: return "fill color"
        case .fillOpacity: return "fill opacity"
        case .strokeColor: return "stroke color"
        case .strokeOpacity: return "stroke opacity"
        case .strokeWidth: return "stroke width"
        case .transform(let property, let owner): return "\(owner) transform \(property.rawValue.lowercased())"
        case .other(let name, let owner): return "\(name) of a \(owner)"
        }
    }
}

/// The properties of a `Transform`, by their keypath names. A plain value: any thread.
public enum LottieTransformProperty: String, Hashable, Sendable, CaseIterable {
    case anchorPoint = "Anchor Point"
    case position = "Position"
    case scale = "Scale"
    case rotation = "Rotation"
    case opacity = "Opacity"
}

/// Whose `Transform` a transform property belongs to. A plain value: any thread.
public enum LottieTransformOwner: String, Hashable, Sendable, CustomStringConvertible {
    /// A layer's own transform (`ks`).
    case layer
    /// A shape group's transform (its `tr` item).
    case group

    public var description: String { rawValue }
}
