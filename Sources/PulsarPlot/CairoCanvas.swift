import CCairo
import Glibc

/// Where text is anchored horizontally on the point it is drawn at.
enum TextAnchor: Sendable {
    case leading
    case center
    case trailing
}

/// A drawing surface in memory, PNG or SVG, through cairo: the only file that calls `cairo_*`.
///
/// Coordinates are pixels, y downwards. Text is cairo's own (fontconfig) in the "DejaVu Sans"
/// face, unhinted (outlines and metrics) so a PNG and an SVG of one figure measure text alike
/// and a figure is the same bytes whatever the process drew before it. Cairo
/// reports failures by status, never by a jump: each becomes `PlotError.cairo`.
///
/// Thread rules: one thread at a time (a canvas owns a cairo context); any number of canvases
/// on any threads at once.
final class CairoCanvas {
    static let fontFamily = "DejaVu Sans"
    /// The glyph hinting of every canvas, PNG or SVG (see `setUpText`).
    static let hintStyle = CAIRO_HINT_STYLE_NONE

    let width: Int
    let height: Int
    let format: PlotFormat
    private let surface: OpaquePointer
    private let context: OpaquePointer
    /// What cairo's stream writer hands us (SVG while drawing and at the end; PNG at the end).
    private let sink = ByteSink()

    /// A canvas of `width × height` pixels (each side checked against `sides`: a figure's by
    /// default; a strip of the viewer may be thinner).
    init(width: Int, height: Int, format: PlotFormat, sides: ClosedRange<Int> = Figure.sides) throws(PlotError) {
        guard sides.contains(width), sides.contains(height) else {
            throw .badSize(width: width, height: height)
        }
        self.width = width
        self.height = height
        self.format = format
        let made: OpaquePointer?
        switch format {
        case .png:
            made = cairo_image_surface_create(CAIRO_FORMAT_ARGB32, Int32(width), Int32(height))
        case .svg:
            made = cairo_svg_surface_create_for_stream(Self.write, Unmanaged.passUnretained(sink).toOpaque(),
                                                       Double(width), Double(height))
        }
        guard let surface = made else { throw .cairo("no surface") }
        if let problem = Self.problem(cairo_surface_status(surface)) {
            cairo_surface_destroy(surface)
            throw .cairo(problem)
        }
        if format == .svg { cairo_svg_surface_set_document_unit(surface, CAIRO_SVG_UNIT_PX) }
        guard let context = cairo_create(surface) else {
            cairo_surface_destroy(surface)
            throw .cairo("no context")
        }
        self.surface = surface
        self.context = context
        try check()
        setUpText()
    }

    /// A canvas only for measuring text (nothing of it is ever written).
    static func measuring() throws(PlotError) -> CairoCanvas {
        try CairoCanvas(width: Figure.sides.lowerBound, height: Figure.sides.lowerBound, format: .png)
    }

    deinit {
        cairo_destroy(context)
        cairo_surface_destroy(surface)
    }

    private func setUpText() {
        guard let options = cairo_font_options_create() else { return }
        cairo_font_options_set_hint_metrics(options, CAIRO_HINT_METRICS_OFF)
        // No hinting, spelt out: cairo resolves a font face through fontconfig once per process,
        // with the options and the size of the first text drawn in it, and keeps that for every
        // size after. Left to the surface, an SVG drawn first made every later PNG unhinted, and
        // so did a first text under 7.5 px (Debian's 20-unhint-small-dejavu-sans.conf); an
        // explicit "slight" is overridden by such a face. Unhinted is the one style that no
        // resolution can change, and it is what an SVG draws anyway.
        cairo_font_options_set_hint_style(options, Self.hintStyle)
        cairo_font_options_set_antialias(options, CAIRO_ANTIALIAS_GRAY)
        cairo_set_font_options(context, options)
        cairo_font_options_destroy(options)
    }

    // MARK: Text

    private func selectFont(size: Double, bold: Bool) {
        cairo_select_font_face(context, Self.fontFamily, CAIRO_FONT_SLANT_NORMAL,
                               bold ? CAIRO_FONT_WEIGHT_BOLD : CAIRO_FONT_WEIGHT_NORMAL)
        cairo_set_font_size(context, size)
    }

    /// The advance width of `text` in pixels.
    func textWidth(_ text: String, size: Double, bold: Bool = false) -> Double {
        selectFont(size: size, bold: bold)
        var extents = cairo_text_extents_t()
        cairo_text_extents(context, Self.printable(text), &extents)
        return extents.x_advance
    }

    /// The hint style, hint metrics and antialiasing cairo draws this canvas's text with at
    /// `size`: the surface's defaults with the canvas's options over them, as cairo merges them.
    func textRendering(size: Double) -> [UInt32] {
        selectFont(size: size, bold: false)
        guard let options = cairo_font_options_create() else { return [] }
        defer { cairo_font_options_destroy(options) }
        cairo_scaled_font_get_font_options(cairo_get_scaled_font(context), options)
        return [cairo_font_options_get_hint_style(options).rawValue, cairo_font_options_get_hint_metrics(options).rawValue,
                cairo_font_options_get_antialias(options).rawValue]
    }

    /// The face's ascent and descent at `size`, in pixels.
    func fontMetrics(size: Double) -> (ascent: Double, descent: Double) {
        selectFont(size: size, bold: false)
        var extents = cairo_font_extents_t()
        cairo_font_extents(context, &extents)
        return (extents.ascent, extents.descent)
    }

    /// Draws `text` with its baseline through `point`, anchored there; `rotated` turns it a
    /// quarter anticlockwise (reading upwards), anchored along its own direction.
    func text(_ text: String, at point: PlotPoint, size: Double, bold: Bool = false, color: PlotColor,
              anchor: TextAnchor = .leading, rotated: Bool = false) {
        let shown = Self.printable(text)
        let advance = textWidth(text, size: size, bold: bold)
        let shift: Double
        switch anchor {
        case .leading: shift = 0
        case .center: shift = -advance / 2
        case .trailing: shift = -advance
        }
        cairo_save(context)
        cairo_translate(context, point.x, point.y)
        if rotated { cairo_rotate(context, -Double.pi / 2) }
        setColor(color)
        cairo_move_to(context, shift, 0)
        cairo_show_text(context, shown)
        cairo_new_path(context)
        cairo_restore(context)
    }

    /// Control characters shown as spaces (names come from input files).
    private static func printable(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) else { return text }
        return String(String.UnicodeScalarView(text.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? " " : $0 }))
    }

    // MARK: Shapes

    private func setColor(_ c: PlotColor) {
        cairo_set_source_rgba(context, Double(c.red) / 255, Double(c.green) / 255, Double(c.blue) / 255, Double(c.alpha) / 255)
    }

    private func setStroke(width: Double, dash: [Double]) {
        cairo_set_line_width(context, width)
        cairo_set_line_join(context, CAIRO_LINE_JOIN_ROUND)
        cairo_set_line_cap(context, dash.isEmpty ? CAIRO_LINE_CAP_ROUND : CAIRO_LINE_CAP_BUTT)
        dash.withUnsafeBufferPointer { cairo_set_dash(context, $0.baseAddress, Int32($0.count), 0) }
    }

    /// Fills every rectangle of `rects` in one colour, as one path.
    func fill(_ rects: [PlotRect], _ color: PlotColor) {
        guard !rects.isEmpty else { return }
        for r in rects { cairo_rectangle(context, r.x, r.y, r.width, r.height) }
        setColor(color)
        cairo_fill(context)
    }

    /// Fills `rect` with corners rounded to `radius`.
    func roundedRectangle(_ rect: PlotRect, radius: Double, _ color: PlotColor) {
        let r = min(radius, rect.width / 2, rect.height / 2)
        cairo_new_sub_path(context)
        cairo_arc(context, rect.maxX - r, rect.minY + r, r, -Double.pi / 2, 0)
        cairo_arc(context, rect.maxX - r, rect.maxY - r, r, 0, Double.pi / 2)
        cairo_arc(context, rect.minX + r, rect.maxY - r, r, Double.pi / 2, Double.pi)
        cairo_arc(context, rect.minX + r, rect.minY + r, r, Double.pi, 3 * Double.pi / 2)
        cairo_close_path(context)
        setColor(color)
        cairo_fill(context)
    }

    /// Strokes `rect`'s outline.
    func stroke(_ rect: PlotRect, _ color: PlotColor, width: Double) {
        cairo_rectangle(context, rect.x, rect.y, rect.width, rect.height)
        setColor(color)
        setStroke(width: width, dash: [])
        cairo_stroke(context)
    }

    /// Strokes the segments `from[i] → to[i]` (butt ends: snapped lines stay on their pixels).
    func segments(_ pairs: [(PlotPoint, PlotPoint)], _ color: PlotColor, width: Double, dash: [Double] = []) {
        guard !pairs.isEmpty else { return }
        for (a, b) in pairs {
            cairo_move_to(context, a.x, a.y)
            cairo_line_to(context, b.x, b.y)
        }
        setColor(color)
        setStroke(width: width, dash: dash)
        cairo_set_line_cap(context, CAIRO_LINE_CAP_BUTT)
        cairo_stroke(context)
    }

    /// Strokes each run of `runs` as one connected line.
    func polylines(_ runs: [[PlotPoint]], _ color: PlotColor, width: Double, dash: [Double] = []) {
        var any = false
        for run in runs where run.count > 1 {
            cairo_move_to(context, run[0].x, run[0].y)
            for p in run.dropFirst() { cairo_line_to(context, p.x, p.y) }
            any = true
        }
        guard any else { return }
        setColor(color)
        setStroke(width: width, dash: dash)
        cairo_stroke(context)
    }

    /// Fills each closed polygon of `polygons`.
    func fillPolygons(_ polygons: [[PlotPoint]], _ color: PlotColor) {
        var any = false
        for polygon in polygons where polygon.count > 2 {
            cairo_move_to(context, polygon[0].x, polygon[0].y)
            for p in polygon.dropFirst() { cairo_line_to(context, p.x, p.y) }
            cairo_close_path(context)
            any = true
        }
        guard any else { return }
        setColor(color)
        cairo_fill(context)
    }

    /// Fills a disc of `radius` at each of `centers`, with an outline of `outline` (nil: none).
    func discs(_ centers: [PlotPoint], radius: Double, _ color: PlotColor, outline: PlotColor? = nil) {
        guard !centers.isEmpty else { return }
        for c in centers {
            cairo_new_sub_path(context)
            cairo_arc(context, c.x, c.y, radius, 0, 2 * Double.pi)
        }
        setColor(color)
        if let outline {
            cairo_fill_preserve(context)
            setColor(outline)
            setStroke(width: 1, dash: [])
            cairo_stroke(context)
        } else {
            cairo_fill(context)
        }
    }

    /// Paints a grid of opaque colours (`columns × rows`, row 0 at the top, row-major) scaled
    /// into `rect`; `smooth` interpolates between cells, else each cell is a sharp block.
    func image(_ pixels: [PlotColor], columns: Int, rows: Int, into rect: PlotRect, smooth: Bool) throws(PlotError) {
        guard columns > 0, rows > 0, pixels.count == columns * rows, rect.width > 0, rect.height > 0 else { return }
        guard let image = cairo_image_surface_create(CAIRO_FORMAT_RGB24, Int32(columns), Int32(rows)) else {
            throw .cairo("no image surface")
        }
        defer { cairo_surface_destroy(image) }
        if let problem = Self.problem(cairo_surface_status(image)) { throw .cairo(problem) }
        cairo_surface_flush(image)
        let stride = Int(cairo_image_surface_get_stride(image))
        guard let data = cairo_image_surface_get_data(image) else { throw .cairo("no image data") }
        for row in 0..<rows {
            let line = UnsafeMutableRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
            for column in 0..<columns {
                let c = pixels[row * columns + column]
                line[column] = 0xFF00_0000 | UInt32(c.red) << 16 | UInt32(c.green) << 8 | UInt32(c.blue)
            }
        }
        cairo_surface_mark_dirty(image)
        cairo_save(context)
        cairo_rectangle(context, rect.x, rect.y, rect.width, rect.height)
        cairo_clip(context)
        cairo_translate(context, rect.x, rect.y)
        cairo_scale(context, rect.width / Double(columns), rect.height / Double(rows))
        cairo_set_source_surface(context, image, 0, 0)
        cairo_pattern_set_filter(cairo_get_source(context), smooth ? CAIRO_FILTER_GOOD : CAIRO_FILTER_NEAREST)
        cairo_pattern_set_extend(cairo_get_source(context), CAIRO_EXTEND_PAD)
        cairo_paint(context)
        cairo_restore(context)
    }

    /// Runs `body` with drawing clipped to `rect`.
    func clipped(to rect: PlotRect, _ body: () throws(PlotError) -> Void) throws(PlotError) {
        cairo_save(context)
        cairo_rectangle(context, rect.x, rect.y, rect.width, rect.height)
        cairo_clip(context)
        defer { cairo_restore(context) }
        try body()
    }

    /// Runs `body` without antialiasing (for shapes on whole pixels: crisp edges in any viewer).
    func aliased(_ body: () throws(PlotError) -> Void) throws(PlotError) {
        cairo_save(context)
        cairo_set_antialias(context, CAIRO_ANTIALIAS_NONE)
        defer { cairo_restore(context) }
        try body()
    }

    // MARK: Output

    /// The picture so far as premultiplied ARGB32 pixels (native-endian, row by row from the top,
    /// no row padding): a PNG canvas's image surface, read without ending the drawing.
    func pixels() throws(PlotError) -> [UInt32] {
        try check()
        guard format == .png else { throw .cairo("an SVG canvas has no pixels") }
        cairo_surface_flush(surface)
        let stride = Int(cairo_image_surface_get_stride(surface))
        guard let data = cairo_image_surface_get_data(surface) else { throw .cairo("no image data") }
        var out = [UInt32](repeating: 0, count: width * height)
        out.withUnsafeMutableBufferPointer { dst in
            for row in 0..<height {
                let line = UnsafeRawPointer(data + row * stride).assumingMemoryBound(to: UInt32.self)
                (dst.baseAddress! + row * width).update(from: line, count: width)
            }
        }
        return out
    }

    /// Ends drawing and returns the encoded bytes: a PNG file's, or an SVG document's. The
    /// canvas draws nothing after.
    func finish() throws(PlotError) -> [UInt8] {
        try check()
        switch format {
        case .png:
            cairo_surface_flush(surface)
            let status = cairo_surface_write_to_png_stream(surface, Self.write, Unmanaged.passUnretained(sink).toOpaque())
            if let problem = Self.problem(status) { throw .cairo(problem) }
        case .svg:
            cairo_surface_finish(surface)
            if let problem = Self.problem(cairo_surface_status(surface)) { throw .cairo(problem) }
            return Self.stableSurfaceID(sink.bytes)
        }
        return sink.bytes
    }

    /// Cairo names an SVG's drawing group after a counter of every surface the process has made
    /// (`<g id="surface227">`); nothing refers to it. Named `surface1` instead, one figure's SVG
    /// is the same bytes whatever was drawn before it.
    static func stableSurfaceID(_ svg: [UInt8]) -> [UInt8] {
        let open = Array(#"<g id="surface"#.utf8)
        guard let start = svg.firstRange(of: open)?.upperBound else { return svg }
        var end = start
        while end < svg.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(svg[end]) { end += 1 }
        guard end > start, end < svg.count, svg[end] == UInt8(ascii: "\"") else { return svg }
        var result = svg
        result.replaceSubrange(start..<end, with: [UInt8(ascii: "1")])
        return result
    }

    /// The context's sticky error, if any.
    private func check() throws(PlotError) {
        if let problem = Self.problem(cairo_status(context)) { throw .cairo(problem) }
    }

    private static func problem(_ status: cairo_status_t) -> String? {
        guard status != CAIRO_STATUS_SUCCESS else { return nil }
        return cairo_status_to_string(status).map { String(cString: $0) } ?? "status \(status.rawValue)"
    }

    /// Cairo's stream callback: appends to the `ByteSink` passed as the closure.
    private static let write: cairo_write_func_t = { closure, data, length in
        guard let closure else { return CAIRO_STATUS_WRITE_ERROR }
        let sink = Unmanaged<ByteSink>.fromOpaque(closure).takeUnretainedValue()
        if let data, length > 0 { sink.bytes.append(contentsOf: UnsafeBufferPointer(start: data, count: Int(length))) }
        return CAIRO_STATUS_SUCCESS
    }
}

/// The bytes cairo streams out of a surface.
private final class ByteSink {
    var bytes: [UInt8] = []
}
