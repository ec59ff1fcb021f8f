import Foundation

/// A long linear-phase FIR filter applied by FFT overlap-add: shapes white (or pink) noise to
/// any magnitude response given as a function of frequency, in constant memory.
///
/// Used where a target curve has no cheap recursive form: grey noise (inverse A-weighting), the
/// one-octave notch around the tinnitus frequency, and the half-octave narrow band. The filter
/// is designed by frequency sampling with a Blackman window (4097 taps, about 65 Hz transitions
/// at 44.1 kHz, stopband below −55 dB).
public final class FIRShaper: SignalFilter {
    private static let fftSize = 8192
    private static let taps = 4097
    private static let hop = fftSize - taps + 1 // 4096 new samples per transform

    private let fft: FFT
    private let responseReal: [Double]
    private let responseImag: [Double]
    private var pending: [Float] = []      // input not yet transformed
    private var ready: [Float] = []        // output waiting to be handed out
    private var readyIndex = 0
    private var tail: [Double]             // overlap carried into the next block
    private var scratchRe: [Double]
    private var scratchIm: [Double]

    /// - Parameter magnitude: the wanted gain at a frequency in Hz (linear, not dB).
    public init(sampleRate: Int, magnitude: (Double) -> Double) {
        let n = Self.fftSize
        fft = FFT(size: n)
        // Zero-phase impulse response from the sampled magnitude.
        var re = (0..<n).map { k -> Double in
            let bin = k <= n / 2 ? k : n - k
            return magnitude(Double(bin) * Double(sampleRate) / Double(n))
        }
        var im = [Double](repeating: 0, count: n)
        fft.transform(real: &re, imag: &im, inverse: true)
        // Centre, window, and zero-pad to the transform size.
        var h = [Double](repeating: 0, count: n)
        let m = Self.taps, half = m / 2
        for i in 0..<m {
            let source = (i - half + n) % n
            let x = Double(i) / Double(m - 1)
            let window = 0.42 - 0.5 * cos(2 * .pi * x) + 0.08 * cos(4 * .pi * x)
            h[i] = re[source] / Double(n) * window
        }
        var hIm = [Double](repeating: 0, count: n)
        fft.transform(real: &h, imag: &hIm)
        responseReal = h
        responseImag = hIm
        tail = [Double](repeating: 0, count: n - Self.hop)
        scratchRe = [Double](repeating: 0, count: n)
        scratchIm = [Double](repeating: 0, count: n)
        pending.reserveCapacity(Self.hop)
    }

    public func process(_ block: UnsafeMutableBufferPointer<Float>) {
        for i in block.indices {
            if readyIndex >= ready.count { produce() }
            pending.append(block[i])
            block[i] = ready[readyIndex]
            readyIndex += 1
        }
    }

    /// Output lags the input by one hop: the first hop is silent run-in, after that each
    /// transform turns the previous hop of input into output.
    private func produce() {
        if pending.isEmpty {
            ready = [Float](repeating: 0, count: Self.hop)
            readyIndex = 0
            return
        }
        let n = Self.fftSize
        for i in 0..<n {
            scratchRe[i] = i < pending.count ? Double(pending[i]) : 0
            scratchIm[i] = 0
        }
        pending.removeAll(keepingCapacity: true)
        fft.transform(real: &scratchRe, imag: &scratchIm)
        for k in 0..<n {
            let r = scratchRe[k] * responseReal[k] - scratchIm[k] * responseImag[k]
            let i = scratchRe[k] * responseImag[k] + scratchIm[k] * responseReal[k]
            scratchRe[k] = r
            scratchIm[k] = i
        }
        fft.transform(real: &scratchRe, imag: &scratchIm, inverse: true)
        let scale = 1 / Double(n)
        if ready.count != Self.hop { ready = [Float](repeating: 0, count: Self.hop) }
        // The block's response is one hop of finished output plus a tail that overlaps the next.
        for i in 0..<Self.hop {
            ready[i] = Float(scratchRe[i] * scale + tail[i])
        }
        for i in Self.hop..<n {
            tail[i - Self.hop] = scratchRe[i] * scale
        }
        readyIndex = 0
    }
}
