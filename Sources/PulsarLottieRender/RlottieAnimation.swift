import CRlottie
import CRlottieShim
import Glibc
import PulsarLottie

/// A marker as rlottie reports it: frame numbers relative to the animation's first frame.
public struct RlottieMarker: Sendable, Equatable, Hashable {
    public var name: String
    public var startFrame: Int
    public var endFrame: Int

    public init(name: String, startFrame: Int, endFrame: Int) {
        self.name = name
        self.startFrame = startFrame
        self.endFrame = endFrame
    }
}

/// What can go wrong loading or rendering through rlottie.
public enum RlottieError: Error, Equatable, CustomStringConvertible {
    /// rlottie returned no animation (empty, unparsable or unsupported JSON).
    case loadFailed(source: String)
    /// rlottie reported a composition size or frame count of zero.
    case emptyComposition(source: String)
    /// A render size or row stride that cannot describe the buffer.
    case invalidRenderTarget(width: Int, height: Int, bytesPerRow: Int, bufferCount: Int)
    /// A render target (or the covering render behind a fill) beyond `LottieLimits`'
    /// `maximumCanvasSide` or `maximumCanvasPixels`.
    case renderTargetTooLarge(width: Int, height: Int)
    /// An override whose value rlottie cannot take for its property: of another type than
    /// `property.valueType`, or outside rlottie's range (rlottie would ignore it silently).
    case invalidProperty(keypath: String, property: RlottieProperty, value: LottieValue, reason: String)
    /// A keypath rlottie cannot take (empty, or holding a NUL character).
    case invalidKeypath(String)

    public var description: String {
        switch self {
        case let .loadFailed(source):
            return "rlottie could not load the animation \(source)"
        case let .emptyComposition(source):
            return "the animation \(source) has no size or no frames"
        case let .invalidRenderTarget(width, height, bytesPerRow, count):
            return "cannot render \(width)×\(height) with \(bytesPerRow) bytes per row into \(count) pixels"
        case let .renderTargetTooLarge(width, height):
            return "cannot render \(width)×\(height): a render target is at most \(LottieLimits.maximumCanvasSide) pixels a side "
                + "and \(LottieLimits.maximumCanvasPixels) pixels in all [too-large]"
        case let .invalidProperty(keypath, property, value, reason):
            return "override \(property.rawValue) = \(Self.text(of: value)) at '\(keypath)': \(reason)"
        case let .invalidKeypath(keypath):
            return "invalid rlottie keypath '\(keypath)'"
        }
    }

    /// The value as given, unclamped (a colour's `hex` would clamp the out-of-range component).
    private static func text(of value: LottieValue) -> String {
        switch value {
        case .color(let c): return "rgb(\(c.r), \(c.g), \(c.b))"
        case .number, .point: return value.description
        }
    }
}

/// One rlottie animation object: the only Swift type that calls `lottie_*`.
///
/// Thread rules: rlottie animation objects are not thread-safe, so this class is not `Sendable`:
/// use one instance from one thread (or isolation domain) at a time; it may be handed to another
/// with `sending`. Distinct instances may render on distinct threads at once.
///
/// Rendering produces premultiplied ARGB32 (`0xAARRGGBB` in a native-endian `UInt32`). rlottie
/// always keeps the composition's aspect ratio: it scales uniformly to fit the target size and
/// centres the result, leaving the rest of the target as it was (callers clear it first).
///
/// rlottie caches the render tree of the last frame it updated and skips the update when asked
/// for the same frame number at the same size again, even after a property override (measured on
/// Debian's 0.1+dfsg-4+deb12u2: the stale frame comes back; a different size does update). This
/// type hides that: after any override change, the next render first rebuilds the render tree
/// at a different size (`lottie_animation_render_tree`), which costs one tree update and no
/// rasterisation. Removing overrides (rlottie has no call for it) re-creates the rlottie object.
public final class RlottieAnimation {
    private var handle: OpaquePointer
    /// The JSON with a trailing NUL, kept to re-create the object when overrides are cleared.
    private let json: [CChar]
    private let cacheKey: String
    private let resourcePath: String
    /// Set by every override change; the next render forces a render-tree update first.
    private var treeMayBeStale = false

    /// Composition width in its own units (the JSON's `w`).
    public let width: Int
    /// Composition height in its own units (the JSON's `h`).
    public let height: Int
    /// Frames per second (the JSON's `fr`).
    public let frameRate: Double
    /// Number of frames rlottie renders: frames `0..<totalFrames` (the JSON's `op − ip`).
    public let totalFrames: Int
    /// rlottie's duration in seconds. Note: rlottie reports `(op − ip − 1) / fr`, the time of the
    /// last frame, not `(op − ip) / fr`.
    public let duration: Double
    /// Markers in file order.
    public let markers: [RlottieMarker]
    /// The overrides applied so far, in order (a later one on the same objects wins).
    public private(set) var overrides: [RlottieOverride] = []

    /// Loads an animation from Lottie JSON bytes.
    ///
    /// - Parameters:
    ///   - jsonData: the Lottie JSON (UTF-8). Copied; the caller's bytes are not retained.
    ///   - resourcePath: the folder external image assets are resolved against (a `/` is
    ///     appended when missing). By default, and for "", `sealedResourcePath`: nothing
    ///     resolves, so rlottie reads no file at all (embed images first,
    ///     `LottieAnimation.embeddingImages(from:)`); give a real folder only for trusted input.
    ///   - cacheKey: when not nil and not empty, rlottie keeps the parsed model in its process-wide
    ///     cache under this key and later loads with the same key reuse it without parsing the
    ///     bytes again. The key must then identify the content exactly. Nil parses every time.
    ///   - source: a name for error messages (a path, say).
    /// - Throws: `RlottieError.loadFailed` or `.emptyComposition`.
    public init<Bytes: Collection>(jsonData: Bytes, resourcePath: String = RlottieAnimation.sealedResourcePath,
                                   cacheKey: String? = nil, source: String = "<data>") throws where Bytes.Element == UInt8 {
        var json = [CChar]()
        json.reserveCapacity(jsonData.count + 1)
        for byte in jsonData { json.append(CChar(bitPattern: byte)) }
        json.append(0)
        let given = resourcePath.isEmpty ? Self.sealedResourcePath : resourcePath
        let folder = given.hasSuffix("/") ? given : given + "/"
        let key = cacheKey ?? ""
        guard jsonData.count > 0, let handle = Self.load(json, key: key, resourcePath: folder) else {
            throw RlottieError.loadFailed(source: source)
        }
        var w = 0
        var h = 0
        lottie_animation_get_size(handle, &w, &h)
        let frames = lottie_animation_get_totalframe(handle)
        guard w > 0, h > 0, frames > 0 else {
            lottie_animation_destroy(handle)
            throw RlottieError.emptyComposition(source: source)
        }
        self.handle = handle
        self.json = json
        self.cacheKey = key
        self.resourcePath = folder
        width = w
        height = h
        totalFrames = frames
        frameRate = lottie_animation_get_framerate(handle)
        duration = lottie_animation_get_duration(handle)
        markers = Self.readMarkers(handle)
    }

    deinit {
        lottie_animation_destroy(handle)
    }

    /// The resource path under which no file can be found: `/dev/null/` is not a folder, so
    /// every path rlottie builds on it (`..` included: the kernel walks `..` only from a
    /// folder) fails with `ENOTDIR` before anything is opened, and no user can create one.
    public static let sealedResourcePath = "/dev/null/"

    private static func load(_ json: [CChar], key: String, resourcePath: String) -> OpaquePointer? {
        json.withUnsafeBufferPointer { buffer in
            lottie_animation_from_data(buffer.baseAddress, key, resourcePath)
        }
    }

    private static func readMarkers(_ handle: OpaquePointer) -> [RlottieMarker] {
        guard let list = lottie_animation_get_markerlist(handle), let first = list.pointee.ptr else { return [] }
        return (0..<list.pointee.size).map { index in
            let marker = first[index]
            return RlottieMarker(name: marker.name.map { String(cString: $0) } ?? "",
                                 startFrame: marker.startframe, endFrame: marker.endframe)
        }
    }

    /// Renders frame `frame` (clamped to `0..<totalFrames`, as rlottie does) into `buffer`:
    /// `height` rows of `bytesPerRow` bytes, `width` premultiplied ARGB32 pixels used per row.
    /// The composition is scaled uniformly to fit `width`×`height` and centred; pixels it does
    /// not cover keep their previous values, so clear the buffer first for a transparent
    /// background. `bytesPerRow` must be a multiple of 4, at least `width × 4`, and the buffer
    /// must hold `bytesPerRow / 4 × (height − 1) + width` pixels.
    public func render(frame: Int, into buffer: UnsafeMutableBufferPointer<UInt32>,
                       width: Int, height: Int, bytesPerRow: Int) throws {
        let stride = bytesPerRow / 4
        guard width > 0, height > 0, bytesPerRow % 4 == 0, stride >= width,
              let base = buffer.baseAddress, buffer.count >= stride * (height - 1) + width else {
            throw RlottieError.invalidRenderTarget(width: width, height: height, bytesPerRow: bytesPerRow,
                                                   bufferCount: buffer.count)
        }
        let frameNumber = min(max(frame, 0), totalFrames - 1)
        if treeMayBeStale {
            // Any size other than the one about to be rendered makes rlottie update its tree.
            _ = lottie_animation_render_tree(handle, frameNumber, width + 1, height + 1)
            treeMayBeStale = false
        }
        lottie_animation_render(handle, frameNumber, base, width, height, bytesPerRow)
    }

    /// Renders frame `frame` at `width`×`height` into a new cleared buffer (row-major,
    /// premultiplied ARGB32, transparent where the composition does not reach).
    public func render(frame: Int, width: Int, height: Int) throws -> [UInt32] {
        guard width > 0, height > 0 else {
            throw RlottieError.invalidRenderTarget(width: width, height: height, bytesPerRow: width * 4, bufferCount: 0)
        }
        var pixels = [UInt32](repeating: 0, count: width * height)
        try pixels.withUnsafeMutableBufferPointer { buffer in
            try render(frame: frame, into: buffer, width: width, height: height, bytesPerRow: width * 4)
        }
        return pixels
    }

    /// Overrides `override.property` with `override.value` on every object `override.keypath`
    /// matches (an rlottie keypath: dot-separated names from the layer name down, case-sensitive,
    /// `*` and `**` wildcards, e.g. `**.Fill 1`), from the next render on. A keypath matching
    /// nothing is accepted and changes nothing (rlottie does not report it).
    ///
    /// Values are in rlottie's units and ranges (see `RlottieProperty`): colour components
    /// (r, g, b; alpha is not used) in 0...1, opacities in 0...100, stroke width in 0 up to
    /// `LottieLimits.maximumStrokeWidthPerSide` × the longer side, position within
    /// `maximumCoordinatePerSide` × it, scale within ±`maximumScalePercent`, rotation finite. Transform position, scale and rotation take
    /// effect on shape groups only, not on layers.
    /// - Throws: `RlottieError.invalidProperty` for a value of another type than the property's
    ///   or out of range, `.invalidKeypath` for an empty keypath or one holding NUL. Nothing is
    ///   applied then.
    public func apply(_ override: RlottieOverride) throws {
        let call = try RlottieOverrideCall(override, side: Double(max(width, height)))
        guard !override.keypath.isEmpty, !override.keypath.utf8.contains(0) else {
            throw RlottieError.invalidKeypath(override.keypath)
        }
        Self.send(call, keypath: override.keypath, to: handle)
        overrides.append(override)
        treeMayBeStale = true
    }

    /// Applies each override in order (a `LottieResolvedProperties.overrides(atFrame:)` list as
    /// it comes); stops at the first invalid one (those before it stay).
    public func apply(_ list: [RlottieOverride]) throws {
        for item in list { try apply(item) }
    }

    /// Removes every override by re-creating the rlottie object from the same JSON (with the
    /// cache key, rlottie reuses the parsed model). Does nothing when there are none.
    /// - Throws: `RlottieError.loadFailed` if rlottie fails to load the same bytes again.
    public func clearOverrides() throws {
        guard !overrides.isEmpty else { return }
        guard let fresh = Self.load(json, key: cacheKey, resourcePath: resourcePath) else {
            throw RlottieError.loadFailed(source: "<reload>")
        }
        lottie_animation_destroy(handle)
        handle = fresh
        overrides = []
        treeMayBeStale = false
    }

    /// Replaces the current overrides with `list`: clears them (if any) and applies `list`.
    public func setOverrides(_ list: [RlottieOverride]) throws {
        try clearOverrides()
        try apply(list)
    }

    private static func send(_ call: RlottieOverrideCall, keypath: String, to handle: OpaquePointer) {
        switch call {
        case let .fillColor(r, g, b):
            pulsar_rlottie_override_fill_color(handle, keypath, r, g, b)
        case let .fillOpacity(value):
            pulsar_rlottie_override_fill_opacity(handle, keypath, value)
        case let .strokeColor(r, g, b):
            pulsar_rlottie_override_stroke_color(handle, keypath, r, g, b)
        case let .strokeOpacity(value):
            pulsar_rlottie_override_stroke_opacity(handle, keypath, value)
        case let .strokeWidth(value):
            pulsar_rlottie_override_stroke_width(handle, keypath, value)
        case let .position(x, y):
            pulsar_rlottie_override_position(handle, keypath, x, y)
        case let .scale(x, y):
            pulsar_rlottie_override_scale(handle, keypath, x, y)
        case let .rotation(degrees):
            pulsar_rlottie_override_rotation(handle, keypath, degrees)
        }
    }
}

/// One `lottie_animation_property_override` call: the rlottie property and the doubles it reads
/// for it, checked against rlottie's ranges.
private enum RlottieOverrideCall {
    case fillColor(r: Double, g: Double, b: Double)
    case fillOpacity(Double)
    case strokeColor(r: Double, g: Double, b: Double)
    case strokeOpacity(Double)
    case strokeWidth(Double)
    case position(x: Double, y: Double)
    case scale(x: Double, y: Double)
    case rotation(degrees: Double)

    /// The call for `override`.
    /// - Throws: `RlottieError.invalidProperty` when the value is not of the property's type or
    ///   is out of range.
    init(_ override: RlottieOverride, side: Double) throws(RlottieError) {
        guard let call = Self.call(override.property, override.value) else {
            throw RlottieError.invalidProperty(keypath: override.keypath, property: override.property, value: override.value,
                                               reason: "\(override.property.rawValue) takes a \(override.property.valueType.rawValue), not a \(override.value.type.rawValue)")
        }
        if let reason = call.rangeProblem(side: side) {
            throw RlottieError.invalidProperty(keypath: override.keypath, property: override.property, value: override.value,
                                               reason: reason)
        }
        self = call
    }

    /// The call for `property` and `value`, or nil when `value` is not of `property.valueType`.
    private static func call(_ property: RlottieProperty, _ value: LottieValue) -> RlottieOverrideCall? {
        switch (property, value) {
        case (.fillColor, .color(let c)): return .fillColor(r: c.r, g: c.g, b: c.b)
        case (.strokeColor, .color(let c)): return .strokeColor(r: c.r, g: c.g, b: c.b)
        case (.fillOpacity, .number(let n)): return .fillOpacity(n)
        case (.strokeOpacity, .number(let n)): return .strokeOpacity(n)
        case (.strokeWidth, .number(let n)): return .strokeWidth(n)
        case (.transformRotation, .number(let n)): return .rotation(degrees: n)
        case (.transformPosition, .point(let p)): return .position(x: p.x, y: p.y)
        case (.transformScale, .point(let p)): return .scale(x: p.x, y: p.y)
        default: return nil
        }
    }

    /// Nil when every value is finite and in range for a composition whose longer side is
    /// `side` pixels, else why not.
    private func rangeProblem(side: Double) -> String? {
        func unit(_ value: Double) -> Bool { value.isFinite && value >= 0 && value <= 1 }
        func percent(_ value: Double) -> Bool { value.isFinite && value >= 0 && value <= 100 }
        switch self {
        case let .fillColor(r, g, b), let .strokeColor(r, g, b):
            return unit(r) && unit(g) && unit(b) ? nil : "color components must be in 0...1"
        case let .fillOpacity(value), let .strokeOpacity(value):
            return percent(value) ? nil : "opacity must be in 0...100"
        case let .strokeWidth(value):
            let most = LottieLimits.maximumStrokeWidthPerSide * side
            return value.isFinite && value >= 0 && value <= most ? nil : "stroke width must be in 0...\(most) for a \(Int(side))-pixel composition [too-large]"
        case let .position(x, y):
            let most = LottieLimits.maximumCoordinatePerSide * side
            return abs(x) <= most && abs(y) <= most ? nil : "position must be within ±\(most) for a \(Int(side))-pixel composition [too-large]"
        case let .scale(x, y):
            let most = LottieLimits.maximumScalePercent
            return abs(x) <= most && abs(y) <= most ? nil : "scale must be within ±\(Int(most)) % [too-large]"
        case let .rotation(degrees):
            return degrees.isFinite ? nil : "rotation must be finite"
        }
    }
}
