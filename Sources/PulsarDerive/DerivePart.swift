import PulsarCore

/// The samples of a sound `from` … `to` name (docs/derive.md, The input).
enum DerivePart {
    /// The frames `round(from·R/1000) ..< round(to·R/1000)` of a sound of `total` frames, `to`
    /// cut at the end (with a warning); an error when `from` lies at or past the end of a sound
    /// that is not empty.
    static func frames(_ settings: DeriveSettings, total: Int, sampleRate: Int, file: String? = nil) throws(DeriveError) -> (Range<Int>, [DeriveDiagnostic]) {
        try frames(from: settings.fromMilliseconds, to: settings.toMilliseconds, total: total, sampleRate: sampleRate, file: file)
    }

    static func frames(from: Double, to: Double?, total: Int, sampleRate: Int, file: String? = nil) throws(DeriveError) -> (Range<Int>, [DeriveDiagnostic]) {
        let rate = SampleRate(sampleRate)!
        let length = rate.milliseconds(atFrame: FrameIndex(total))
        let start = Int(rate.nearestFrame(atMilliseconds: from))
        guard total > 0 else { return (0..<0, []) }
        guard start < total else {
            throw DeriveError(.badPart, file: file, message: "from \(JSONWriter.format(from)) ms is out of range: must be before the end of the sound (\(JSONWriter.format(length)) ms)")
        }
        var warnings: [DeriveDiagnostic] = []
        var end = total
        if let to {
            let wanted = Int(rate.nearestFrame(atMilliseconds: to))
            if wanted > total {
                warnings.append(.warning(.partClipped, file: file, "to \(JSONWriter.format(to)) ms is past the end of the sound: analysed to its end (\(JSONWriter.format(length)) ms)"))
            } else {
                end = wanted
            }
        }
        return (start..<max(start, end), warnings)
    }
}
