import PulsarLottieRender

/// The deterministic twin of `SDLWindow`: events are queued by the caller, presented frames are
/// kept. Resizing queues the `.resized` event a window would send.
///
/// Thread rules: one thread, like a window.
public final class MemorySurface: ViewerSurface {
    public private(set) var width: Int
    public private(set) var height: Int
    public var title = ""
    public var pixelScale: Double
    /// The last frame presented.
    public private(set) var lastFrame: ARGB32Image?
    /// How many frames were presented.
    public private(set) var presentedCount = 0
    private var queue: [ViewerEvent] = []

    public init(width: Int, height: Int, pixelScale: Double = 1) {
        self.width = width
        self.height = height
        self.pixelScale = pixelScale
    }

    /// Queues `events` for the next `pollEvents()`.
    public func send(_ events: ViewerEvent...) { queue += events }

    /// Changes the drawable size and queues `.resized`.
    public func resize(width: Int, height: Int) {
        self.width = width
        self.height = height
        queue.append(.resized(width: width, height: height))
    }

    public func pollEvents() -> [ViewerEvent] {
        defer { queue.removeAll() }
        return queue
    }

    public func present(_ frame: ARGB32Image) throws(ViewerSurfaceError) {
        guard frame.width == width, frame.height == height else {
            throw ViewerSurfaceError("frame of \(frame.width)×\(frame.height) presented on a \(width)×\(height) surface")
        }
        lastFrame = frame
        presentedCount += 1
    }
}
