import PulsarCore

// Tests compare frame positions with numbers worked out by hand and index recordings with them:
// these leave a frame domain for a plain number, explicitly. The library itself writes `.index`.

extension Int {
    /// The position's index as an `Int` (a recording's frame number, say).
    public init<D>(_ frame: Frame<D>) { self.init(frame.index) }
}

extension Double {
    /// The position's index as a `Double` (to compare with a fractional clock reading).
    public init<D>(_ frame: Frame<D>) { self.init(frame.index) }
}
