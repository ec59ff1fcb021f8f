import Foundation

/// Headless Chromium and the tools around it, for tests that look at a picture or a page as a
/// person would: a screenshot decoded to pixels, a print to PDF read back as text. Scripts/bootstrap installs them (chromium, fonts-dejavu-core, poppler-utils,
/// python3); when one is missing the test fails with a line saying so, never skips.
public enum HeadlessChromium {
    public struct Missing: Error, CustomStringConvertible {
        let tool: String
        public init(tool: String) { self.tool = tool }
        public var description: String {
            "\(tool) is not installed: run Scripts/bootstrap --tests (it installs chromium, chromium-driver, fonts-dejavu-core, poppler-utils and the Python test tools)"
        }
    }

    /// The path of a program on PATH, or the error naming Scripts/bootstrap.
    public static func tool(_ names: String...) throws -> String {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        for name in names {
            for directory in path.split(separator: ":") {
                let candidate = "\(directory)/\(name)"
                if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            }
        }
        throw Missing(tool: names.joined(separator: " or "))
    }

    /// A fresh temporary directory (removed by the caller's `defer`).
    public static func temporaryDirectory() throws -> URL {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("tn-browser-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        return url
    }

    /// Runs a program to its end (at most `timeout` seconds) and returns its standard output;
    /// a non-zero exit throws with its standard error.
    @discardableResult
    public static func run(_ executable: String, _ arguments: [String], timeout: TimeInterval = 90) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        let out = Pipe(), err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        let watchdog = DispatchWorkItem { if process.isRunning { process.terminate() } }
        DispatchQueue.global().asyncAfter(deadline: .now() + timeout, execute: watchdog)
        let output = out.fileHandleForReading.readDataToEndOfFile()
        let errors = err.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        watchdog.cancel()
        guard process.terminationStatus == 0 else {
            throw ToolFailed(description: "\(executable) \(arguments.joined(separator: " ")) exited \(process.terminationStatus): "
                + String(decoding: errors, as: UTF8.self).suffix(2000))
        }
        return String(decoding: output, as: UTF8.self)
    }

    public struct ToolFailed: Error, CustomStringConvertible {
        public let description: String
    }

    /// Chromium's arguments for one headless run with its own profile (tests run in parallel,
    /// and a shared profile would be locked), at one device pixel per CSS pixel.
    public static func chromiumArguments(profile: URL) -> [String] {
        ["--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars", "--force-device-scale-factor=1",
         "--no-first-run", "--user-data-dir=\(profile.path)"]
    }

    /// A screenshot of `file` in a window of `width` × `height`, decoded to pixels.
    public static func screenshot(_ file: URL, width: Int, height: Int) throws -> RGBImage {
        let chromium = try tool("chromium", "chromium-browser")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let png = directory.appendingPathComponent("shot.png")
        try run(chromium, chromiumArguments(profile: directory.appendingPathComponent("profile"))
            + ["--screenshot=\(png.path)", "--window-size=\(width),\(height)", file.absoluteString])
        return try RGBImage(png: png)
    }

    /// `file` printed to PDF and read back as text.
    public static func printedText(_ file: URL) throws -> String {
        let chromium = try tool("chromium", "chromium-browser")
        let pdftotext = try tool("pdftotext")
        let directory = try temporaryDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let pdf = directory.appendingPathComponent("report.pdf")
        try run(chromium, chromiumArguments(profile: directory.appendingPathComponent("profile"))
            + ["--print-to-pdf=\(pdf.path)", "--no-pdf-header-footer", file.absoluteString])
        let data = try Data(contentsOf: pdf)
        guard data.starts(with: Array("%PDF".utf8)) else { throw ToolFailed(description: "\(pdf.path) is not a PDF") }
        return try run(pdftotext, ["-layout", pdf.path, "-"])
    }
}

/// Pixels of a PNG, decoded by a few lines of Python's standard library (zlib and struct:
/// no imaging package needed), which writes them as a binary PPM that Swift reads directly.
public struct RGBImage {
    public let width: Int
    public let height: Int
    public let bytes: [UInt8]

    /// 8-bit RGB or RGBA, not interlaced: what Chromium writes.
    static let decoder = #"""
    import struct, sys, zlib
    data = open(sys.argv[1], 'rb').read()
    if data[:8] != b'\x89PNG\r\n\x1a\n': sys.exit('not a PNG')
    pos, idat = 8, b''
    while pos < len(data):
        length, kind = struct.unpack('>I4s', data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        if kind == b'IHDR':
            width, height, depth, ctype, _, _, interlace = struct.unpack('>IIBBBBB', body)
            if depth != 8 or ctype not in (2, 6) or interlace: sys.exit('unsupported PNG %d/%d/%d' % (depth, ctype, interlace))
            channels = 3 if ctype == 2 else 4
        elif kind == b'IDAT':
            idat += body
        elif kind == b'IEND':
            break
        pos += 12 + length
    raw = zlib.decompress(idat)
    stride = width * channels
    prev, out, i = bytearray(stride), bytearray(), 0
    for y in range(height):
        kind = raw[i]; i += 1
        line = bytearray(raw[i:i + stride]); i += stride
        if kind:
            for x in range(stride):
                a = line[x - channels] if x >= channels else 0
                b = prev[x]
                c = prev[x - channels] if x >= channels else 0
                if kind == 1: p = a
                elif kind == 2: p = b
                elif kind == 3: p = (a + b) >> 1
                else:
                    q = a + b - c
                    pa, pb, pc = abs(q - a), abs(q - b), abs(q - c)
                    p = a if pa <= pb and pa <= pc else (b if pb <= pc else c)
                line[x] = (line[x] + p) & 255
        prev = line
        if channels == 3: out += line
        else:
            for x in range(width): out += line[x * 4:x * 4 + 3]
    open(sys.argv[2], 'wb').write(b'P6\n%d %d\n255\n' % (width, height) + bytes(out))
    """#

    public init(png: URL) throws {
        let python = try HeadlessChromium.tool("python3")
        let ppm = png.deletingPathExtension().appendingPathExtension("ppm")
        try HeadlessChromium.run(python, ["-c", Self.decoder, png.path, ppm.path])
        let data = [UInt8](try Data(contentsOf: ppm))
        // "P6\n<w> <h>\n255\n", then the pixels.
        var fields: [String] = []
        var index = 0
        var current = ""
        while fields.count < 4, index < data.count {
            let byte = data[index]
            index += 1
            if byte == 0x0A || byte == 0x20 {
                if !current.isEmpty { fields.append(current); current = "" }
            } else {
                current.append(Character(Unicode.Scalar(byte)))
            }
        }
        guard fields.count == 4, fields[0] == "P6", let width = Int(fields[1]), let height = Int(fields[2]),
              data.count - index == width * height * 3 else {
            throw HeadlessChromium.ToolFailed(description: "the decoded image is not a PPM: \(fields)")
        }
        self.width = width
        self.height = height
        bytes = Array(data[index...])
    }

    public func pixel(x: Int, y: Int) -> (r: Int, g: Int, b: Int)? {
        guard x >= 0, y >= 0, x < width, y < height else { return nil }
        let offset = (y * width + x) * 3
        return (Int(bytes[offset]), Int(bytes[offset + 1]), Int(bytes[offset + 2]))
    }

    /// Whether a pixel is clearly red (the right ear) or clearly blue (the left).
    public static func isRed(_ p: (r: Int, g: Int, b: Int)) -> Bool { p.r > 150 && p.g < 110 && p.b < 110 }
    public static func isBlue(_ p: (r: Int, g: Int, b: Int)) -> Bool { p.b > 150 && p.r < 110 && p.g < 130 }

    /// How many pixels within `radius` of a point satisfy `test`.
    public func count(near x: Double, _ y: Double, radius: Int, where test: ((r: Int, g: Int, b: Int)) -> Bool) -> Int {
        let cx = Int(x.rounded()), cy = Int(y.rounded())
        var count = 0
        for dy in -radius...radius {
            for dx in -radius...radius where dx * dx + dy * dy <= radius * radius {
                if let p = pixel(x: cx + dx, y: cy + dy), test(p) { count += 1 }
            }
        }
        return count
    }
}
