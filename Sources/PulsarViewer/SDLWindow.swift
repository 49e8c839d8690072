import CSDL2
import PulsarLottieRender

/// A resizable SDL2 window showing premultiplied ARGB32 frames through one streaming texture.
/// Every `SDL_*` call of the project is in this file.
///
/// Works with any SDL video driver: a desktop (`x11`, `wayland`), Xvfb, or SDL's `offscreen`
/// driver with no display at all (`SDL_VIDEODRIVER=offscreen`). The renderer is SDL's
/// accelerated one where there is one, else its software renderer; presents do not wait for
/// vertical sync (the viewer paces itself, see `FramePacer`).
///
/// Thread rules: create, use and drop it on the main thread (SDL's rule for video and events).
/// One window at a time per process.
public final class SDLWindow: ViewerSurface {
    private let window: OpaquePointer
    private let renderer: OpaquePointer
    private var texture: OpaquePointer?
    private var textureSize = (width: 0, height: 0)
    public private(set) var width: Int
    public private(set) var height: Int

    /// Opens a window whose drawable area is `width × height` pixels. Throws with SDL's own
    /// reason when no video driver starts (for instance no `DISPLAY` and no `offscreen`).
    public init(title: String, width: Int, height: Int) throws(ViewerSurfaceError) {
        guard width > 0, height > 0, width <= 16_384, height <= 16_384 else {
            throw ViewerSurfaceError("window size \(width)×\(height) is not 1…16384 on each side")
        }
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")
        guard SDL_InitSubSystem(SDL_INIT_VIDEO) == 0 else {
            throw ViewerSurfaceError("no display: SDL video: \(Self.lastError())")
        }
        let flags = SDL_WINDOW_RESIZABLE.rawValue | SDL_WINDOW_ALLOW_HIGHDPI.rawValue
        guard let window = SDL_CreateWindow(title, CSDL2_WINDOWPOS_CENTERED, CSDL2_WINDOWPOS_CENTERED,
                                            Int32(width), Int32(height), flags) else {
            let why = Self.lastError()
            SDL_QuitSubSystem(SDL_INIT_VIDEO)
            throw ViewerSurfaceError("cannot open a window: \(why)")
        }
        guard let renderer = SDL_CreateRenderer(window, -1, SDL_RENDERER_ACCELERATED.rawValue)
            ?? SDL_CreateRenderer(window, -1, SDL_RENDERER_SOFTWARE.rawValue) else {
            let why = Self.lastError()
            SDL_DestroyWindow(window)
            SDL_QuitSubSystem(SDL_INIT_VIDEO)
            throw ViewerSurfaceError("cannot draw in the window: \(why)")
        }
        self.window = window
        self.renderer = renderer
        var w: Int32 = 0, h: Int32 = 0
        SDL_GetRendererOutputSize(renderer, &w, &h)
        self.width = w > 0 ? Int(w) : width
        self.height = h > 0 ? Int(h) : height
    }

    deinit {
        if let texture { SDL_DestroyTexture(texture) }
        SDL_DestroyRenderer(renderer)
        SDL_DestroyWindow(window)
        SDL_QuitSubSystem(SDL_INIT_VIDEO)
    }

    /// Drawable pixels per window point (more than 1 on a HiDPI display), at least 1.
    public var pixelScale: Double {
        var points = (w: Int32(0), h: Int32(0))
        SDL_GetWindowSize(window, &points.w, &points.h)
        return points.w > 0 ? max(Double(width) / Double(points.w), 1) : 1
    }

    /// The usable area of the first display in points (without panels and docks), or nil when
    /// no video driver starts.
    public static func usableDisplaySize() -> (width: Int, height: Int)? {
        SDL_SetHint(SDL_HINT_NO_SIGNAL_HANDLERS, "1")
        guard SDL_InitSubSystem(SDL_INIT_VIDEO) == 0 else { return nil }
        defer { SDL_QuitSubSystem(SDL_INIT_VIDEO) }
        var bounds = SDL_Rect()
        guard SDL_GetDisplayUsableBounds(0, &bounds) == 0, bounds.w > 0, bounds.h > 0 else { return nil }
        return (Int(bounds.w), Int(bounds.h))
    }

    /// The SDL video driver in use (`x11`, `wayland`, `offscreen`, …).
    public var videoDriver: String {
        SDL_GetCurrentVideoDriver().map { String(cString: $0) } ?? "none"
    }

    /// The SDL renderer in use (`opengl`, `software`, …).
    public var rendererName: String {
        var info = SDL_RendererInfo()
        guard SDL_GetRendererInfo(renderer, &info) == 0, let name = info.name else { return "unknown" }
        return String(cString: name)
    }

    public var title: String {
        get { SDL_GetWindowTitle(window).map { String(cString: $0) } ?? "" }
        set { SDL_SetWindowTitle(window, newValue) }
    }

    public func pollEvents() -> [ViewerEvent] {
        var events: [ViewerEvent] = []
        var event = SDL_Event()
        // Pointer positions come in window points; the drawable may have more pixels (HiDPI).
        var points = (w: Int32(0), h: Int32(0))
        SDL_GetWindowSize(window, &points.w, &points.h)
        let sx = points.w > 0 ? Double(width) / Double(points.w) : 1
        let sy = points.h > 0 ? Double(height) / Double(points.h) : 1
        func px(_ x: Int32) -> Int { Int((Double(x) * sx).rounded(.down)) }
        func py(_ y: Int32) -> Int { Int((Double(y) * sy).rounded(.down)) }
        while SDL_PollEvent(&event) != 0 {
            switch event.type {
            case SDL_QUIT.rawValue:
                events.append(.closed)
            case SDL_KEYDOWN.rawValue:
                if let key = Self.key(event.key.keysym.sym) { events.append(.key(key)) }
            case SDL_MOUSEBUTTONDOWN.rawValue where event.button.button == UInt8(SDL_BUTTON_LEFT):
                events.append(.pointerDown(x: px(event.button.x), y: py(event.button.y)))
            case SDL_MOUSEMOTION.rawValue where event.motion.state & CSDL2_BUTTON_LMASK != 0:
                events.append(.pointerDragged(x: px(event.motion.x), y: py(event.motion.y)))
            case SDL_MOUSEBUTTONUP.rawValue where event.button.button == UInt8(SDL_BUTTON_LEFT):
                events.append(.pointerUp(x: px(event.button.x), y: py(event.button.y)))
            case SDL_WINDOWEVENT.rawValue where event.window.event == UInt8(SDL_WINDOWEVENT_SIZE_CHANGED.rawValue):
                var w: Int32 = 0, h: Int32 = 0
                SDL_GetRendererOutputSize(renderer, &w, &h)
                if w > 0, h > 0, Int(w) != width || Int(h) != height {
                    width = Int(w)
                    height = Int(h)
                    events.append(.resized(width: width, height: height))
                }
            case SDL_DROPFILE.rawValue:
                if let file = event.drop.file {
                    events.append(.fileDropped(String(cString: file)))
                    SDL_free(file)
                }
            default:
                break
            }
        }
        return events
    }

    public func present(_ frame: ARGB32Image) throws(ViewerSurfaceError) {
        if texture == nil || textureSize != (frame.width, frame.height) {
            if let texture { SDL_DestroyTexture(texture) }
            texture = SDL_CreateTexture(renderer, SDL_PIXELFORMAT_ARGB8888.rawValue, Int32(SDL_TEXTUREACCESS_STREAMING.rawValue),
                                        Int32(frame.width), Int32(frame.height))
            guard texture != nil else { throw ViewerSurfaceError("cannot make a \(frame.width)×\(frame.height) texture: \(Self.lastError())") }
            textureSize = (frame.width, frame.height)
        }
        let status = frame.pixels.withUnsafeBytes { bytes in
            SDL_UpdateTexture(texture, nil, bytes.baseAddress, Int32(frame.width * 4))
        }
        guard status == 0 else { throw ViewerSurfaceError("cannot upload a frame: \(Self.lastError())") }
        SDL_RenderClear(renderer)
        SDL_RenderCopy(renderer, texture, nil, nil)
        SDL_RenderPresent(renderer)
    }

    // MARK: Synthetic input (tests): SDL events pushed onto SDL's own queue.

    /// Pushes a key press of SDL key code `sym` (e.g. `SDLK_SPACE`).
    func postKey(_ sym: Int32) {
        var event = SDL_Event()
        event.type = SDL_KEYDOWN.rawValue
        event.key.keysym.sym = sym
        event.key.windowID = SDL_GetWindowID(window)
        SDL_PushEvent(&event)
    }

    /// Pushes a left-button press (`down`), a motion with it held, or a release at (x, y).
    func postPointer(_ type: SDL_EventType, x: Int32, y: Int32) {
        var event = SDL_Event()
        event.type = type.rawValue
        if type == SDL_MOUSEMOTION {
            event.motion.x = x
            event.motion.y = y
            event.motion.state = CSDL2_BUTTON_LMASK
        } else {
            event.button.button = UInt8(SDL_BUTTON_LEFT)
            event.button.x = x
            event.button.y = y
        }
        SDL_PushEvent(&event)
    }

    /// Pushes a file drop of `path` (SDL frees the copy when the event is read).
    func postDrop(_ path: String) {
        var event = SDL_Event()
        event.type = SDL_DROPFILE.rawValue
        event.drop.file = SDL_strdup(path)
        SDL_PushEvent(&event)
    }

    /// Pushes a quit request (the window's close button).
    func postQuit() {
        var event = SDL_Event()
        event.type = SDL_QUIT.rawValue
        SDL_PushEvent(&event)
    }

    private static func key(_ sym: SDL_Keycode) -> ViewerEvent.Key? {
        switch UInt32(bitPattern: sym) {
        case UInt32(SDLK_SPACE.rawValue): return .playPause
        case UInt32(SDLK_LEFT.rawValue): return .seekBack
        case UInt32(SDLK_RIGHT.rawValue): return .seekForward
        case UInt32(SDLK_COMMA.rawValue): return .stepBack
        case UInt32(SDLK_PERIOD.rawValue): return .stepForward
        case UInt32(SDLK_l.rawValue): return .loop
        case UInt32(SDLK_r.rawValue): return .reverse
        case UInt32(SDLK_h.rawValue): return .haptics
        case UInt32(SDLK_c.rawValue): return .timeline
        case UInt32(SDLK_SLASH.rawValue), UInt32(SDLK_QUESTION.rawValue), UInt32(SDLK_F1.rawValue): return .help
        case UInt32(SDLK_n.rawValue): return .nextPreset
        case UInt32(SDLK_p.rawValue): return .previousPreset
        case UInt32(SDLK_q.rawValue), UInt32(SDLK_ESCAPE.rawValue): return .quit
        default: return nil
        }
    }

    private static func lastError() -> String {
        let text = SDL_GetError().map { String(cString: $0) } ?? ""
        return text.isEmpty ? "unknown SDL error" : text
    }
}
