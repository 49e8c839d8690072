import PulsarCore

/// Why a figure could not be laid out, drawn or written. Each case's `description` is one line.
///
/// A plain value type: safe from any thread.
public enum PlotError: Error, Equatable, Sendable, CustomStringConvertible {
    /// A side outside `Figure.sides`.
    case badSize(width: Int, height: Int)
    /// An output path whose extension names no format this library writes.
    case unknownFormat(path: String)
    /// A figure without panels.
    case noPanels
    /// The panels, texts and axes leave less than `Figure.minimumPanelHeight` for a panel.
    case tooSmall(width: Int, height: Int, panels: Int)
    /// Values a series or axis cannot be drawn from (the message names which).
    case badData(String)
    /// Cairo refused (its status text is kept).
    case cairo(String)
    /// The bytes could not be written or put in place.
    case writeFailed(path: String, reason: String)

    public var description: String {
        switch self {
        case let .badSize(width, height):
            return "a figure of \(width)×\(height) pixels: each side must be \(Figure.sides.lowerBound)…\(Figure.sides.upperBound) [bad-size]"
        case let .unknownFormat(path):
            return "\(MessageText.excerpt(path)): the output must end in .png or .svg [unknown-format]"
        case .noPanels:
            return "a figure needs at least one panel [no-panels]"
        case let .tooSmall(width, height, panels):
            return "\(width)×\(height) pixels is too small for \(panels) panel\(panels == 1 ? "" : "s") with their axes and legends [too-small]"
        case let .badData(why):
            return "\(why) [bad-plot-data]"
        case let .cairo(why):
            return "cairo: \(why) [cairo]"
        case let .writeFailed(path, reason):
            return "\(MessageText.excerpt(path)): cannot write: \(reason)"
        }
    }
}

/// The file formats a figure is written in, chosen by the output's extension. A plain value:
/// any thread.
public enum PlotFormat: String, CaseIterable, Sendable {
    case png
    case svg

    /// The format `path`'s extension names (case-insensitive), or nil.
    public init?(path: String) {
        guard let dot = path.lastIndex(of: "."), !path[dot...].contains("/") else { return nil }
        self.init(rawValue: path[path.index(after: dot)...].lowercased())
    }
}
