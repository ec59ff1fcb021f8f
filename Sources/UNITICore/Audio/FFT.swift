import Foundation

/// An in-place radix-2 complex FFT with precomputed twiddles and bit reversal, in Double.
///
/// Small and dependency-free; used by the spectrum analyser and by the FIR shaper of the grey,
/// notched and narrow-band noises. A real signal is transformed by putting it in the real part
/// (the shaper puts a second block in the imaginary part and separates them afterwards).
public final class FFT {
    public let size: Int
    private let cosines: [Double]
    private let sines: [Double]
    private let reversed: [Int]

    /// - Parameter size: a power of two, at least 2.
    public init(size: Int) {
        precondition(size >= 2 && size & (size - 1) == 0, "FFT size must be a power of two")
        self.size = size
        cosines = (0..<size / 2).map { cos(-2 * Double.pi * Double($0) / Double(size)) }
        sines = (0..<size / 2).map { sin(-2 * Double.pi * Double($0) / Double(size)) }
        var bits = 0
        while 1 << bits < size { bits += 1 }
        reversed = (0..<size).map { index in
            var r = 0
            for b in 0..<bits where index & (1 << b) != 0 { r |= 1 << (bits - 1 - b) }
            return r
        }
    }

    /// Transforms `real` and `imag` in place; `inverse` computes the unscaled inverse.
    public func transform(real: inout [Double], imag: inout [Double], inverse: Bool = false) {
        real.withUnsafeMutableBufferPointer { re in
            imag.withUnsafeMutableBufferPointer { im in
                transform(real: re, imag: im, inverse: inverse)
            }
        }
    }

    public func transform(real re: UnsafeMutableBufferPointer<Double>, imag im: UnsafeMutableBufferPointer<Double>,
                          inverse: Bool) {
        let n = size
        reversed.withUnsafeBufferPointer { rev in
            for i in 0..<n {
                let j = rev[i]
                if j > i {
                    let tr = re[i]; re[i] = re[j]; re[j] = tr
                    let ti = im[i]; im[i] = im[j]; im[j] = ti
                }
            }
        }
        let sign: Double = inverse ? -1 : 1
        cosines.withUnsafeBufferPointer { cs in
            sines.withUnsafeBufferPointer { sn in
                var length = 2
                while length <= n {
                    let half = length / 2
                    let step = n / length
                    var start = 0
                    while start < n {
                        var k = 0
                        for j in start..<(start + half) {
                            let wr = cs[k], wi = sign * sn[k]
                            let xr = re[j + half], xi = im[j + half]
                            let tr = xr * wr - xi * wi
                            let ti = xr * wi + xi * wr
                            re[j + half] = re[j] - tr
                            im[j + half] = im[j] - ti
                            re[j] += tr
                            im[j] += ti
                            k += step
                        }
                        start += length
                    }
                    length <<= 1
                }
            }
        }
    }
}
