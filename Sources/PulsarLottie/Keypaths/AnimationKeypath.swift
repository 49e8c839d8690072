/// A dot-separated path through an animation's layers, groups, shape items and properties, as
/// lottie-ios's `AnimationKeypath`: `"Layer.Group 1.Fill 1.Color"`. A component `*` matches
/// exactly one level, `**` any number of levels (none included); every other component matches
/// a name exactly (case-sensitive).
///
/// Contract: a keypath matches a concrete path only as a whole (first component against the
/// top-level layer, last against the last), so `"**.Color"` matches every colour and
/// `"Layer.*"` only the direct children of `Layer`. Components are kept as given, so a concrete
/// keypath built from names (`init(components:)`) may hold names with dots; its `string` is
/// then ambiguous.
///
/// A plain value type: safe to use from any thread.
public struct AnimationKeypath: Hashable, Sendable, CustomStringConvertible, ExpressibleByStringLiteral {
    /// The names (or wildcards), first the layer.
    public let components: [String]

    /// Splits `keypath` at every `.`.
    public init(keypath: String) {
        components = keypath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
    }

    public init(_ keypath: String) { self.init(keypath: keypath) }

    public init(stringLiteral value: String) { self.init(keypath: value) }

    /// A keypath of the given components, taken as they are.
    public init(components: [String]) { self.components = components }

    /// The components joined with dots.
    public var string: String { components.joined(separator: ".") }

    public var description: String { string }

    /// True when a component is `*` or `**`.
    public var hasWildcards: Bool { components.contains { $0 == "*" || $0 == "**" } }

    /// This keypath followed by `name`.
    public func appending(_ name: String) -> AnimationKeypath { AnimationKeypath(components: components + [name]) }

    /// True when this keypath (which may hold wildcards) matches `concrete` (whose components
    /// are all taken as names).
    public func matches(_ concrete: AnimationKeypath) -> Bool {
        let pattern = components, names = concrete.components
        if !pattern.contains(where: { $0 == "*" || $0 == "**" }) { return pattern == names }
        // reachable[j]: the pattern so far can consume exactly the first j names.
        var reachable = [Bool](repeating: false, count: names.count + 1)
        reachable[0] = true
        for component in pattern {
            var next = [Bool](repeating: false, count: names.count + 1)
            switch component {
            case "**":
                var any = false
                for j in 0...names.count {
                    any = any || reachable[j]
                    next[j] = any
                }
            case "*":
                for j in 0..<names.count where reachable[j] { next[j + 1] = true }
            default:
                for j in 0..<names.count where reachable[j] && names[j] == component { next[j + 1] = true }
            }
            reachable = next
            if !reachable.contains(true) { return false }
        }
        return reachable[names.count]
    }
}
