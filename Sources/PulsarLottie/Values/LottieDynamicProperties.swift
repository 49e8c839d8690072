import PulsarCore

/// A set of dynamic properties: value providers bound to lottie-ios keypaths
/// (`"**.Fill 1.Color"`), in the order they were set.
///
/// Contract: setting a provider for a keypath already set replaces it in place; bindings are
/// checked against an animation only by `resolve(in:skipUnsupported:)`.
///
/// Thread rules: a value type; its providers are `@Sendable`. Build it on any thread.
public struct LottieDynamicProperties: Sendable {
    /// One keypath and its provider, type-erased.
    public struct Binding: Sendable {
        public let keypath: AnimationKeypath
        /// What the provider yields.
        public let valueType: LottieValueType
        let evaluate: @Sendable (LottieFrameContext) -> LottieValue
    }

    public private(set) var bindings: [Binding] = []

    public init() {}

    /// Binds `provider` to `keypath` (replacing an earlier provider of the same keypath).
    public mutating func setValueProvider<Value: LottieInterpolatable>(_ provider: LottieValueProvider<Value>,
                                                                        keypath: AnimationKeypath) {
        let binding = Binding(keypath: keypath, valueType: Value.lottieValueType,
                              evaluate: { provider.value(at: $0).lottieValue })
        if let index = bindings.firstIndex(where: { $0.keypath == keypath }) {
            bindings[index] = binding
        } else {
            bindings.append(binding)
        }
    }

    /// Binds a constant `value` (of any kind) to `keypath`, as `--set KEYPATH=VALUE` does.
    public mutating func setValue(_ value: LottieValue, keypath: AnimationKeypath) {
        switch value {
        case .color(let c): setValueProvider(.constant(c), keypath: keypath)
        case .number(let n): setValueProvider(.constant(n), keypath: keypath)
        case .point(let p): setValueProvider(.constant(p), keypath: keypath)
        }
    }

    /// Removes the provider of `keypath`, if any.
    public mutating func removeValueProvider(keypath: AnimationKeypath) {
        bindings.removeAll { $0.keypath == keypath }
    }

    /// Checks every binding against `animation` and expands it to rlottie targets (see
    /// `LottieAnimation.rlottieTargets(for:skipUnsupported:)`), and checks the provider's value
    /// type against each target's.
    ///
    /// Throws the first `LottieKeypathError` in binding order: `valueTypeMismatch` names the
    /// property's type and the provider's.
    public func resolve(in animation: LottieAnimation,
                        skipUnsupported: Bool = false) throws(LottieKeypathError) -> LottieResolvedProperties {
        var resolved: [(target: RlottieOverrideTarget, binding: Int)] = []
        for (index, binding) in bindings.enumerated() {
            for target in try animation.rlottieTargets(for: binding.keypath, skipUnsupported: skipUnsupported) {
                guard target.property.valueType == binding.valueType else {
                    throw LottieKeypathError(.valueTypeMismatch, keypath: target.source.string,
                                             message: "\(target.property.rawValue) takes a \(target.property.valueType.rawValue), the provider for \(binding.keypath.string) yields a \(binding.valueType.rawValue)")
                }
                // A later binding of the same target wins.
                resolved.removeAll { $0.target.keypath == target.keypath && $0.target.property == target.property }
                resolved.append((target, index))
            }
        }
        return LottieResolvedProperties(timing: animation.timing,
                                        items: resolved.map { ($0.target, bindings[$0.binding].evaluate) })
    }
}

/// Dynamic properties checked against one animation: for any frame, the list of rlottie
/// overrides (keypath, property, value) to apply before rendering it.
///
/// Contract: one override per distinct (rlottie keypath, property), in the order the bindings
/// were set; each value is of its property's `valueType`.
///
/// Thread rules: immutable; `overrides(atFrame:)` may run on any thread and calls the providers'
/// blocks there. It allocates the returned array.
public struct LottieResolvedProperties: Sendable {
    let timing: LottieTiming
    let items: [(target: RlottieOverrideTarget, evaluate: @Sendable (LottieFrameContext) -> LottieValue)]

    /// Every target, in application order.
    public var targets: [RlottieOverrideTarget] { items.map(\.target) }

    public var isEmpty: Bool { items.isEmpty }

    /// The values to apply before rendering `frame`.
    public func overrides(atFrame frame: LottieFrame) -> [RlottieOverride] {
        let context = LottieFrameContext(frame: frame, timing: timing)
        return items.map { RlottieOverride(target: $0.target, value: $0.evaluate(context)) }
    }
}
