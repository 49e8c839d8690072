import PulsarCore

/// One layer of a composition, as far as timing and keypaths need it.
///
/// Contract: `name` is `nm` (empty when absent or not a string); a precomposition layer's
/// `layers` are the layers of the asset its `refId` names, already expanded (empty when the
/// asset is missing: the loader then records a warning). Fields the file gives with the wrong
/// type are treated as absent.
///
/// A plain value type: safe to use from any thread.
public struct LottieLayer: Hashable, Sendable {
    /// The layer type (`ty`).
    public enum Kind: Hashable, Sendable {
        /// `ty` 0: a precomposition (`refId` names an asset with `layers`).
        case precomp
        /// `ty` 1: a solid colour.
        case solid
        /// `ty` 2: an image (`refId` names an image asset).
        case image
        /// `ty` 3: a null (transform only).
        case null
        /// `ty` 4: shapes.
        case shape
        /// `ty` 5: text.
        case text
        /// Any other `ty` (audio, camera, data...), or none.
        case other(Int?)

        init(ty: Int?) {
            switch ty {
            case 0: self = .precomp
            case 1: self = .solid
            case 2: self = .image
            case 3: self = .null
            case 4: self = .shape
            case 5: self = .text
            default: self = .other(ty)
            }
        }
    }

    /// `nm`.
    public var name: String
    /// `ty`.
    public var kind: Kind
    /// `ind`: the index `parent` refers to.
    public var index: Int?
    /// `parent`: the `ind` of the layer whose transform this one follows.
    public var parent: Int?
    /// `ip` and `op` of the layer (in the frames of the composition that holds it).
    public var inPoint: LottieFrame?
    public var outPoint: LottieFrame?
    /// `refId`: the asset of a precomposition or image layer.
    public var referenceID: String?
    /// `hd`: hidden.
    public var isHidden: Bool
    /// `shapes` of a shape layer.
    public var shapes: [LottieShapeItem]
    /// The expanded layers of a precomposition.
    public var layers: [LottieLayer]

    public init(name: String, kind: Kind, index: Int? = nil, parent: Int? = nil, inPoint: LottieFrame? = nil,
                outPoint: LottieFrame? = nil, referenceID: String? = nil, isHidden: Bool = false,
                shapes: [LottieShapeItem] = [], layers: [LottieLayer] = []) {
        self.name = name
        self.kind = kind
        self.index = index
        self.parent = parent
        self.inPoint = inPoint
        self.outPoint = outPoint
        self.referenceID = referenceID
        self.isHidden = isHidden
        self.shapes = shapes
        self.layers = layers
    }
}
