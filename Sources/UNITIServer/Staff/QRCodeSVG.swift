import CQREncode
import Foundation

/// A QR code drawn as one SVG path, made by libqrencode (the library Debian's `qrencode` tool
/// uses): the staff console shows the TOTP secret's `otpauth://` URI this way on the enrolment
/// page, inline, so no image request and no script carries the secret.
struct QRCodeSVG: Sendable {
    /// Modules per side, without the quiet zone.
    let width: Int
    /// The dark modules as path commands (`M x y h1v1h-1z` each), offset by the quiet zone.
    let path: String
    /// The quiet zone around the code, in modules (ISO/IEC 18004 asks for 4).
    static let margin = 4
    var size: Int { width + 2 * Self.margin }

    /// The code of `text` at error correction level M; nil when libqrencode cannot encode it.
    init?(_ text: String) {
        guard let code = QRcode_encodeString(text, 0, QR_ECLEVEL_M, QR_MODE_8, 1) else { return nil }
        defer { QRcode_free(code) }
        let width = Int(code.pointee.width)
        var path = ""
        for y in 0..<width {
            for x in 0..<width where code.pointee.data[y * width + x] & 1 == 1 {
                path += "M\(x + Self.margin) \(y + Self.margin)h1v1h-1z"
            }
        }
        self.width = width
        self.path = path
    }
}
