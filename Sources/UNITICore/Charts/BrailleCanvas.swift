/// A grid of terminal cells, each a Unicode braille character of 2 × 4 dots: eight times the
/// resolution of plain characters, so a line chart stays readable in 80 columns.
struct BrailleCanvas {
    let columns: Int
    let rows: Int
    private var cells: [UInt8]
    /// Which series last drew into a cell (for colours), -1 when empty.
    private(set) var owners: [Int]

    init(columns: Int, rows: Int) {
        self.columns = columns
        self.rows = rows
        cells = Array(repeating: 0, count: columns * rows)
        owners = Array(repeating: -1, count: columns * rows)
    }

    var dotWidth: Int { columns * 2 }
    var dotHeight: Int { rows * 4 }

    /// Bits of the braille pattern for a dot (column 0/1, row 0–3), as Unicode numbers them.
    private static let bits: [[UInt8]] = [[0x01, 0x02, 0x04, 0x40], [0x08, 0x10, 0x20, 0x80]]

    mutating func set(x: Int, y: Int, owner: Int = 0) {
        guard x >= 0, y >= 0, x < dotWidth, y < dotHeight else { return }
        let index = (y / 4) * columns + x / 2
        cells[index] |= Self.bits[x % 2][y % 4]
        owners[index] = owner
    }

    /// A straight line of dots (Bresenham), clipped to the canvas.
    mutating func line(from a: (Int, Int), to b: (Int, Int), owner: Int = 0) {
        var (x0, y0) = a
        let (x1, y1) = b
        let dx = abs(x1 - x0), sx = x0 < x1 ? 1 : -1
        let dy = -abs(y1 - y0), sy = y0 < y1 ? 1 : -1
        var error = dx + dy
        while true {
            set(x: x0, y: y0, owner: owner)
            if x0 == x1 && y0 == y1 { break }
            let e2 = 2 * error
            if e2 >= dy { error += dy; x0 += sx }
            if e2 <= dx { error += dx; y0 += sy }
        }
    }

    func character(column: Int, row: Int) -> Character {
        let pattern = cells[row * columns + column]
        return Character(Unicode.Scalar(0x2800 + UInt32(pattern))!)
    }

    func owner(column: Int, row: Int) -> Int { owners[row * columns + column] }
}
