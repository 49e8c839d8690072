import CSDL2
import Foundation
import PulsarLottieRender
@testable import PulsarViewer
import Testing

/// The SDL window on SDL's offscreen video driver: it opens without a display, presents frames
/// of any size, and turns SDL's events into the viewer's.
@Suite(.serialized) struct SDLWindowTests {
    @Test("Opens on the offscreen driver, presents, and translates keys, drags, drops and close")
    func offscreenWindow() throws {
        setenv("SDL_VIDEODRIVER", "offscreen", 1)
        let window = try SDLWindow(title: "test", width: 64, height: 48)
        #expect(window.videoDriver == "offscreen")
        #expect(window.width == 64 && window.height == 48)
        window.title = "pulsar view — t"
        #expect(window.title == "pulsar view — t")
        var painter = Painter(width: 64, height: 48, fill: ViewerColor(10, 20, 30))
        painter.fill(x: 2, y: 2, width: 10, height: 7, ViewerColor(255, 255, 255))
        try window.present(painter.image)
        try window.present(ARGB32Image(width: 32, height: 32))
        _ = window.pollEvents()

        for sym in [SDLK_SPACE, SDLK_LEFT, SDLK_RIGHT, SDLK_COMMA, SDLK_PERIOD, SDLK_l, SDLK_r, SDLK_h, SDLK_c, SDLK_SLASH, SDLK_F1, SDLK_n, SDLK_p, SDLK_q, SDLK_ESCAPE, SDLK_x] {
            window.postKey(Int32(bitPattern: sym.rawValue))
        }
        window.postPointer(SDL_MOUSEBUTTONDOWN, x: 5, y: 6)
        window.postPointer(SDL_MOUSEMOTION, x: 7, y: 8)
        window.postPointer(SDL_MOUSEBUTTONUP, x: 9, y: 10)
        window.postDrop("/tmp/dropped.pulsar")
        window.postQuit()
        let events = window.pollEvents()
        #expect(events == [.key(.playPause), .key(.seekBack), .key(.seekForward), .key(.stepBack), .key(.stepForward), .key(.loop), .key(.reverse), .key(.haptics), .key(.timeline), .key(.help), .key(.help), .key(.nextPreset), .key(.previousPreset),
                           .key(.quit), .key(.quit), .pointerDown(x: 5, y: 6), .pointerDragged(x: 7, y: 8), .pointerUp(x: 9, y: 10),
                           .fileDropped("/tmp/dropped.pulsar"), .closed])
        #expect(window.pollEvents().isEmpty)
    }

    @Test("A window size outside 1…16384 is refused with the rule")
    func badSize() {
        #expect(throws: ViewerSurfaceError.self) { try SDLWindow(title: "x", width: 0, height: 10) }
    }
}
