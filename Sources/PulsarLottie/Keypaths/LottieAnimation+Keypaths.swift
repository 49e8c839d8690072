extension LottieAnimation {
    /// Every concrete keypath of the animation, as strings, in lottie-ios's naming (see
    /// `keypathEntries`). The counterpart of lottie-ios's `logHierarchyKeypaths()`.
    public func allHierarchyKeypaths() -> [String] {
        keypathEntries.map(\.keypath.string)
    }

    /// The concrete keypaths `keypath` matches (`*` one level, `**` any depth), each with what it
    /// addresses, in hierarchy order. Empty when nothing matches.
    public func keypaths(matching keypath: AnimationKeypath) -> [LottieKeypathEntry] {
        if !keypath.hasWildcards { return (keypathIndex[keypath] ?? []).map { keypathEntries[$0] } }
        return keypathEntries.filter { keypath.matches($0.keypath) }
    }

    /// Where rlottie applies the properties `keypath` matches.
    ///
    /// Throws `LottieKeypathError`: `malformedKeypath` for an empty component; `noMatch` when
    /// nothing matches; `notAProperty` when only layers, items or transform nodes match; and
    /// otherwise the first refusal of `LottieKeypathEntry.rlottieTarget()` among the matched
    /// properties (`unsupportedByRlottie`, `unaddressableName`) unless `skipUnsupported` is
    /// true, in which case refused matches are left out (and only a match-set with nothing
    /// usable throws).
    public func rlottieTargets(for keypath: AnimationKeypath,
                               skipUnsupported: Bool = false) throws(LottieKeypathError) -> [RlottieOverrideTarget] {
        if keypath.components.contains(where: \.isEmpty) {
            throw LottieKeypathError(.malformedKeypath, keypath: keypath.string,
                                     message: "a keypath is dot-separated names, `*` or `**`, none empty")
        }
        let matches = keypaths(matching: keypath)
        guard !matches.isEmpty else {
            throw LottieKeypathError(.noMatch, keypath: keypath.string,
                                     message: "nothing in \(source) matches (list the keypaths with allHierarchyKeypaths())")
        }
        let properties = matches.filter { $0.property != nil }
        guard let firstProperty = properties.first else {
            throw refusal(matches[0])
        }
        var targets: [RlottieOverrideTarget] = []
        var firstRefusal: LottieKeypathError?
        for entry in properties {
            do {
                let target = try entry.rlottieTarget()
                if !targets.contains(target) { targets.append(target) }
            } catch {
                if !skipUnsupported { throw error }
                if firstRefusal == nil { firstRefusal = error }
            }
        }
        guard !targets.isEmpty else { throw firstRefusal ?? refusal(firstProperty) }
        return targets
    }

    private func refusal(_ entry: LottieKeypathEntry) -> LottieKeypathError {
        do {
            _ = try entry.rlottieTarget()
            return LottieKeypathError(.notAProperty, keypath: entry.keypath.string, message: "not a property")
        } catch {
            return error
        }
    }
}
