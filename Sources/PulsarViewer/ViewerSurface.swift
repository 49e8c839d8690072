import PulsarLottieRender

/// Why a surface could not be opened or drawn.
public struct ViewerSurfaceError: Error, CustomStringConvertible, Sendable, Equatable {
    public let message: String
    public init(_ message: String) { self.message = message }
    public var description: String { message }
}

/// Where the viewer draws and where its input comes from: an SDL window (`SDLWindow`) or its
/// deterministic twin (`MemorySurface`).
///
/// Thread rules: a surface belongs to the thread that created it (SDL requires the main
/// thread); call every member from that thread.
public protocol ViewerSurface: AnyObject {
    /// The drawable area in pixels.
    var width: Int { get }
    var height: Int { get }
    /// Drawable pixels per window point (2 on a HiDPI display at 200 %).
    var pixelScale: Double { get }
    /// The window's title.
    var title: String { get set }
    /// The events since the last call, oldest first. Never blocks.
    func pollEvents() -> [ViewerEvent]
    /// Shows `frame` (premultiplied ARGB32, opaque, the surface's size) until the next present.
    func present(_ frame: ARGB32Image) throws(ViewerSurfaceError)
}
