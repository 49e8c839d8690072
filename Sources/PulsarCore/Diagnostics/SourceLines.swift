/// Maps byte offsets of a source to 1-based lines and columns (columns count UTF-8 bytes): the
/// place every JSON reader's diagnostics name (patterns, bundle manifests, Lottie documents and
/// dotLottie manifests). The table of line starts is built on the first question — positions are only needed for
/// diagnostics — and then answers each one by binary search, so a file with many warnings costs
/// one pass, not one pass per warning.
///
/// Used by one decoding at a time (the table is filled without a lock).
public struct SourceLines: @unchecked Sendable {
    private let bytes: [UInt8]
    private let table = LineStarts()

    private final class LineStarts {
        var starts: [Int]?
    }

    public init(_ bytes: [UInt8]) {
        self.bytes = bytes  // shares the caller's storage: no copy
    }

    /// The line and column of `offset`, clamped to the source (0 ... its length).
    public func position(of offset: Int) -> (line: Int, column: Int) {
        let starts = table.starts ?? {
            var list = [0]
            for (i, b) in bytes.enumerated() where b == 0x0A { list.append(i + 1) }
            table.starts = list
            return list
        }()
        // The last line start at or before the offset (a newline byte belongs to its own line).
        let target = min(max(0, offset), bytes.count)
        var lo = 0, hi = starts.count - 1
        while lo < hi {
            let mid = (lo + hi + 1) / 2
            if starts[mid] <= target { lo = mid } else { hi = mid - 1 }
        }
        return (lo + 1, target - starts[lo] + 1)
    }
}
