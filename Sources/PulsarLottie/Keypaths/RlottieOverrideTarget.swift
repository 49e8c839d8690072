/// The properties rlottie's `lottie_animation_property_override` applies, named after its
/// `Lottie_Animation_Property` constants. Only those rlottie really applies are here (it has
/// constants for transform anchor and opacity too, but they have no effect).
///
/// Value units rlottie takes: colours as r, g, b in 0…1; opacity 0…100; stroke width in points;
/// position x, y in points; scale width, height in percent; rotation in degrees.
///
/// A plain value: safe to use from any thread.
public enum RlottieProperty: String, Hashable, Sendable, CaseIterable {
    /// `LOTTIE_ANIMATION_PROPERTY_FILLCOLOR` (a colour).
    case fillColor
    /// `LOTTIE_ANIMATION_PROPERTY_FILLOPACITY` (a number, 0…100).
    case fillOpacity
    /// `LOTTIE_ANIMATION_PROPERTY_STROKECOLOR` (a colour).
    case strokeColor
    /// `LOTTIE_ANIMATION_PROPERTY_STROKEOPACITY` (a number, 0…100).
    case strokeOpacity
    /// `LOTTIE_ANIMATION_PROPERTY_STROKEWIDTH` (a number).
    case strokeWidth
    /// `LOTTIE_ANIMATION_PROPERTY_TR_POSITION` (a point).
    case transformPosition
    /// `LOTTIE_ANIMATION_PROPERTY_TR_SCALE` (a point, percent per axis).
    case transformScale
    /// `LOTTIE_ANIMATION_PROPERTY_TR_ROTATION` (a number, degrees).
    case transformRotation

    /// The value type rlottie takes for the property.
    public var valueType: LottieValueType {
        switch self {
        case .fillColor, .strokeColor: return .color
        case .fillOpacity, .strokeOpacity, .strokeWidth, .transformRotation: return .number
        case .transformPosition, .transformScale: return .point
        }
    }
}

/// Where rlottie applies one property: its keypath (ending at the fill, stroke or group that
/// owns the property) and the property.
///
/// A plain value type: safe to use from any thread.
public struct RlottieOverrideTarget: Hashable, Sendable, CustomStringConvertible {
    /// The keypath to pass to `lottie_animation_property_override`.
    public let keypath: String
    public let property: RlottieProperty
    /// The lottie-ios keypath this target was made from.
    public let source: AnimationKeypath

    public init(keypath: String, property: RlottieProperty, source: AnimationKeypath) {
        self.keypath = keypath
        self.property = property
        self.source = source
    }

    public var description: String { "\(keypath) [\(property.rawValue)]" }
}

/// One value to apply before rendering a frame: rlottie keypath, property, value.
///
/// A plain value type: safe to use from any thread.
public struct RlottieOverride: Hashable, Sendable, CustomStringConvertible {
    public let target: RlottieOverrideTarget
    /// Of `target.property.valueType`.
    public let value: LottieValue

    public init(target: RlottieOverrideTarget, value: LottieValue) {
        self.target = target
        self.value = value
    }

    /// The keypath to pass to rlottie.
    public var keypath: String { target.keypath }
    public var property: RlottieProperty { target.property }

    public var description: String { "\(target) = \(value)" }
}
