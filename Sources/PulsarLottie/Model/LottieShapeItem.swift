/// One item of a shape layer's `shapes` (or of a group's `it`), as far as keypaths need it.
///
/// Contract: `name` is `nm` (empty when absent); only groups have `items`. A group's transform
/// (its `tr` item) stays in `items` as a `.transform` item.
///
/// A plain value type: safe to use from any thread.
public struct LottieShapeItem: Hashable, Sendable {
    /// The item type (`ty`).
    public enum Kind: Hashable, Sendable {
        case group, fill, stroke, gradientFill, gradientStroke, transform
        case path, rectangle, ellipse, star
        case trimPaths, roundedCorners, repeater, mergePaths, offsetPath, zigZag, puckerBloat, twist
        /// Any other `ty` (as written; empty when absent).
        case other(String)

        init(ty: String) {
            switch ty {
            case "gr": self = .group
            case "fl": self = .fill
            case "st": self = .stroke
            case "gf": self = .gradientFill
            case "gs": self = .gradientStroke
            case "tr": self = .transform
            case "sh": self = .path
            case "rc": self = .rectangle
            case "el": self = .ellipse
            case "sr": self = .star
            case "tm": self = .trimPaths
            case "rd": self = .roundedCorners
            case "rp": self = .repeater
            case "mm": self = .mergePaths
            case "op": self = .offsetPath
            case "zz": self = .zigZag
            case "pb": self = .puckerBloat
            case "tw": self = .twist
            default: self = .other(ty)
            }
        }
    }

    /// `nm`.
    public var name: String
    /// `ty`.
    public var kind: Kind
    /// `hd`: hidden.
    public var isHidden: Bool
    /// `it` of a group.
    public var items: [LottieShapeItem]

    public init(name: String, kind: Kind, isHidden: Bool = false, items: [LottieShapeItem] = []) {
        self.name = name
        self.kind = kind
        self.isHidden = isHidden
        self.items = items
    }
}
