extension StringProtocol {
    /// The first place `text` occurs, compared byte for byte in UTF-8 (no Unicode equivalence,
    /// no locale). The standard library's collection searches come with its regular-expression
    /// engine, which a shipped library does not need; these three are all the project searches
    /// text with. A match of a whole UTF-8 text always starts and ends on scalar boundaries.
    package func range(ofText text: some StringProtocol) -> Range<Index>? {
        let bytes = Array(text.utf8), haystack = utf8
        guard let first = bytes.first else { return startIndex..<startIndex }
        var start = haystack.startIndex
        while let candidate = haystack[start...].firstIndex(of: first) {
            var i = candidate, j = 0
            while j < bytes.count, i < haystack.endIndex, haystack[i] == bytes[j] { i = haystack.index(after: i); j += 1 }
            if j == bytes.count { return candidate..<i }
            start = haystack.index(after: candidate)
        }
        return nil
    }

    /// Whether `text` occurs (byte for byte).
    package func contains(text: some StringProtocol) -> Bool { range(ofText: text) != nil }

    /// Every occurrence of `text` (non-empty) replaced by `replacement`, left to right.
    package func replacing(text: some StringProtocol, with replacement: some StringProtocol) -> String {
        var out = "", rest = self[...]
        while !text.isEmpty, let found = rest.range(ofText: text) {
            out += rest[..<found.lowerBound]
            out += replacement
            rest = rest[found.upperBound...]
        }
        return out + rest
    }
}
