import PulsarLottieRender
import PulsarViewer
import Testing

@Suite struct PainterTests {
    @Test("Source-over of premultiplied pixels matches the formula per component")
    func over() {
        let src = ViewerColor(200, 100, 50, 128).premultiplied
        let dst: UInt32 = 0xFF_20_40_60
        let out = Painter.over(src, dst)
        func c(_ p: UInt32, _ s: UInt32) -> Double { Double((p >> s) & 0xFF) }
        for shift: UInt32 in [0, 8, 16, 24] {
            let expected = c(src, shift) + c(dst, shift) * (255 - 128) / 255
            #expect(abs(c(out, shift) - expected) <= 0.5 + 1e-9)
        }
        #expect(Painter.over(0, dst) == dst && Painter.over(0xFF_01_02_03, dst) == 0xFF_01_02_03)
    }

    @Test("Text lights exactly the glyph's cells, scaled, and clips at the edges")
    func text() {
        var painter = Painter(width: 20, height: 20, fill: ViewerColor(0, 0, 0))
        painter.text("1", x: 2, y: 3, scale: 2, ViewerColor(255, 255, 255))
        let rows = BitmapFont.rows(of: "1")
        for y in 0..<20 {
            for x in 0..<20 {
                let gx = (x - 2) / 2, gy = (y - 3) / 2
                let inGlyph = x >= 2 && y >= 3 && gx < 5 && gy < 7 && rows[gy] & (0x10 >> UInt8(gx)) != 0
                #expect((painter.image[x, y] == 0xFFFF_FFFF) == inGlyph, "(\(x), \(y))")
            }
        }
        // Text running off the edges draws what falls inside and nothing else: `W`'s top-left
        // cell covers (15…17, 15…17); its second column is dark.
        let before = painter.image
        painter.text("WIDE TEXT", x: 15, y: 15, scale: 3, ViewerColor(255, 0, 0))
        #expect(painter.image[15, 15] == 0xFFFF_0000 && painter.image[17, 17] == 0xFFFF_0000)
        #expect(painter.image[18, 15] == before[18, 15])
        #expect((0..<15).allSatisfy { y in (0..<20).allSatisfy { x in painter.image[x, y] == before[x, y] } })
        #expect(BitmapFont.rows(of: "a") == BitmapFont.rows(of: "A"))
        #expect(BitmapFont.rows(of: "€") != BitmapFont.rows(of: " "), "unknown characters draw a box")
    }
}
