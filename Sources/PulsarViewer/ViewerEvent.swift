/// An input to the viewer, as the window reports it (or a test injects it).
public enum ViewerEvent: Sendable, Equatable {
    /// The keys the viewer acts on.
    public enum Key: Sendable, Equatable {
        /// Space: pause / resume (play from the start once ended).
        case playPause
        /// ← and →: seek back / forward.
        case seekBack, seekForward
        /// `,` and `.`: hold one animation frame earlier / later (a pattern: 10 ms).
        case stepBack, stepForward
        /// `l`: loop on / off.
        case loop
        /// `r`: reverse (boomerang) on / off.
        case reverse
        /// `h`: haptics on / off.
        case haptics
        /// `c`: the timeline on / off.
        case timeline
        /// `?` (or F1): the help panel on / off.
        case help
        /// `n` / `p`: the next / previous preset of the bundle.
        case nextPreset, previousPreset
        /// `q` or Escape.
        case quit
    }

    case key(Key)
    /// A button pressed, the pointer moved with it held, and released; drawable pixels (on a
    /// HiDPI display, window points scaled to pixels).
    case pointerDown(x: Int, y: Int)
    case pointerDragged(x: Int, y: Int)
    case pointerUp(x: Int, y: Int)
    /// The drawable area is now `width × height` pixels.
    case resized(width: Int, height: Int)
    /// A file was dropped on the window.
    case fileDropped(String)
    /// The window was closed.
    case closed
}
