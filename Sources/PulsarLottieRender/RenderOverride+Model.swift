import PulsarLottie

extension RenderOverride {
    /// The render-side form of a resolved dynamic property (`LottieResolvedProperties.overrides(atFrame:)`):
    /// colours 0…1, opacities in percent, rotation in degrees, position in points, scale in percent.
    public init(_ resolved: RlottieOverride) {
        let property: RenderProperty
        switch (resolved.property, resolved.value) {
        case (.fillColor, .color(let c)): property = .fillColor(r: c.r, g: c.g, b: c.b)
        case (.strokeColor, .color(let c)): property = .strokeColor(r: c.r, g: c.g, b: c.b)
        case (.fillOpacity, .number(let n)): property = .fillOpacity(n)
        case (.strokeOpacity, .number(let n)): property = .strokeOpacity(n)
        case (.strokeWidth, .number(let n)): property = .strokeWidth(n)
        case (.transformRotation, .number(let n)): property = .rotation(degrees: n)
        case (.transformPosition, .point(let p)): property = .position(x: p.x, y: p.y)
        case (.transformScale, .point(let p)): property = .scale(x: p.x, y: p.y)
        default:
            // `LottieDynamicProperties.resolve` checks value types against properties.
            preconditionFailure("a resolved override pairs \(resolved.property) with \(resolved.value)")
        }
        self.init(keypath: resolved.keypath, property: property)
    }
}
