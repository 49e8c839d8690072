extension StringProtocol {
    /// The text without the white space (the Unicode White_Space property: blanks and line
    /// breaks) at either end: Foundation's `trimmingCharacters(in: .whitespacesAndNewlines)`,
    /// which FoundationEssentials does not have.
    package var trimmedOfWhitespace: String { trimmed { $0.properties.isWhitespace } }

    /// The text without blanks (spaces of category Zs and tabs) at either end, line breaks kept:
    /// Foundation's `trimmingCharacters(in: .whitespaces)`.
    package var trimmedOfBlanks: String { trimmed { $0 == "\t" || $0.properties.generalCategory == .spaceSeparator } }

    private func trimmed(_ drop: (Unicode.Scalar) -> Bool) -> String {
        let scalars = unicodeScalars
        guard let first = scalars.firstIndex(where: { !drop($0) }), let last = scalars.lastIndex(where: { !drop($0) }) else { return "" }
        var out = String.UnicodeScalarView()
        out.append(contentsOf: scalars[first...last])
        return String(out)
    }
}
