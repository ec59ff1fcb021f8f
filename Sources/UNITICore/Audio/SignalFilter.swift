import Foundation

/// A linear filter that shapes a block of one channel's samples in place, keeping its state
/// between blocks so that a stream rendered in blocks of any size is the same stream.
public protocol SignalFilter: AnyObject {
    func process(_ block: UnsafeMutableBufferPointer<Float>)
}

/// Impulse-response energy of a filter chain built by `make` (a fresh chain, so the caller's
/// filters keep a clean state).
func impulseEnergy(_ make: () -> [any SignalFilter], length: Int = 1 << 16) -> Double {
    var block = [Float](repeating: 0, count: length)
    block[0] = 1
    let filters = make()
    block.withUnsafeMutableBufferPointer { buffer in
        for filter in filters { filter.process(buffer) }
    }
    return block.reduce(0.0) { $0 + Double($1) * Double($1) }
}

/// Paul Kellet's refined pink-noise filter: seven first-order sections whose sum follows 1/f
/// within about ±0.05 dB above 10 Hz at 44.1 kHz. A well-known public-domain design; cheaper
/// than Voss–McCartney and without its ripple.
public final class PinkFilter: SignalFilter {
    private var b0: Float = 0, b1: Float = 0, b2: Float = 0, b3: Float = 0, b4: Float = 0, b5: Float = 0, b6: Float = 0

    public init() {}

    public func process(_ block: UnsafeMutableBufferPointer<Float>) {
        var b0 = self.b0, b1 = self.b1, b2 = self.b2, b3 = self.b3, b4 = self.b4, b5 = self.b5, b6 = self.b6
        for i in block.indices {
            let white = block[i]
            b0 = 0.99886 * b0 + white * 0.0555179
            b1 = 0.99332 * b1 + white * 0.0750759
            b2 = 0.96900 * b2 + white * 0.1538520
            b3 = 0.86650 * b3 + white * 0.3104856
            b4 = 0.55000 * b4 + white * 0.5329522
            b5 = -0.7616 * b5 - white * 0.0168980
            block[i] = b0 + b1 + b2 + b3 + b4 + b5 + b6 + white * 0.5362
            b6 = white * 0.115926
        }
        self.b0 = b0; self.b1 = b1; self.b2 = b2; self.b3 = b3; self.b4 = b4; self.b5 = b5; self.b6 = b6
    }
}

/// A leaky integrator (1/f², brown noise) followed by a DC blocker, both with corners near
/// 5 Hz, so the state never drifts and no inaudible offset eats headroom.
///
/// The plain backward-difference integrator falls short of 1/f² towards Nyquist (its response
/// is 1/sin²(ω/2), not 1/(ω/2)²); the zero at z = −`correction` restores the slope to within
/// about 0.05 dB up to 10 kHz.
public final class IntegratorFilter: SignalFilter {
    private let leak: Float
    private let correction: Float
    private var previousInput: Float = 0
    private var integrated: Float = 0
    private var blockerInput: Float = 0
    private var blockerOutput: Float = 0

    public init(sampleRate: Int, corner: Double = 5, correction: Float = slopeCorrection) {
        self.leak = Float(1 - 2 * Double.pi * corner / Double(sampleRate))
        self.correction = correction
    }

    public func process(_ block: UnsafeMutableBufferPointer<Float>) {
        var x1 = previousInput, y = integrated, bx = blockerInput, by = blockerOutput
        let leak = self.leak, c = correction
        for i in block.indices {
            let x = block[i]
            y = leak * y + x + c * x1
            x1 = x
            by = y - bx + leak * by
            bx = y
            block[i] = by
        }
        previousInput = x1; integrated = y; blockerInput = bx; blockerOutput = by
    }
}

/// The first difference (f², violet from white, blue from pink), with a pole at z = −`correction`
/// that lifts the top octave back onto the f² line (the difference alone gives sin²(ω/2)).
public final class DifferentiatorFilter: SignalFilter {
    private let correction: Float
    private var previousInput: Float = 0
    private var previousOutput: Float = 0

    public init(correction: Float = slopeCorrection) {
        self.correction = correction
    }

    public func process(_ block: UnsafeMutableBufferPointer<Float>) {
        var x1 = previousInput, y1 = previousOutput
        let c = correction
        for i in block.indices {
            let x = block[i]
            let y = x - x1 - c * y1
            x1 = x
            y1 = y
            block[i] = y
        }
        previousInput = x1; previousOutput = y1
    }
}

/// The zero/pole position that makes the first-order integrator and differentiator follow
/// their ideal slopes at 44.1 kHz (least squares between 100 Hz and 10 kHz).
public let slopeCorrection: Float = 0.115

/// A second-order section (RBJ audio-EQ cookbook), for the textures' time-varying colouring.
public final class Biquad: SignalFilter {
    public enum Shape: Sendable { case lowPass, highPass, bandPass }
    private var b0: Float = 1, b1: Float = 0, b2: Float = 0, a1: Float = 0, a2: Float = 0
    private var x1: Float = 0, x2: Float = 0, y1: Float = 0, y2: Float = 0
    private let shape: Shape
    private let sampleRate: Double

    public init(_ shape: Shape, frequency: Double, q: Double, sampleRate: Int) {
        self.shape = shape
        self.sampleRate = Double(sampleRate)
        tune(frequency: frequency, q: q)
    }

    /// Moves the corner or centre; the state is kept, so a sweep stays continuous.
    public func tune(frequency: Double, q: Double) {
        let w = 2 * Double.pi * min(max(frequency, 10), sampleRate * 0.45) / sampleRate
        let alpha = sin(w) / (2 * q)
        let cosw = cos(w)
        let a0 = 1 + alpha
        var nb0: Double, nb1: Double, nb2: Double
        switch shape {
        case .lowPass: nb0 = (1 - cosw) / 2; nb1 = 1 - cosw; nb2 = (1 - cosw) / 2
        case .highPass: nb0 = (1 + cosw) / 2; nb1 = -(1 + cosw); nb2 = (1 + cosw) / 2
        case .bandPass: nb0 = alpha; nb1 = 0; nb2 = -alpha
        }
        b0 = Float(nb0 / a0); b1 = Float(nb1 / a0); b2 = Float(nb2 / a0)
        a1 = Float(-2 * cosw / a0); a2 = Float((1 - alpha) / a0)
    }

    public func process(_ block: UnsafeMutableBufferPointer<Float>) {
        for i in block.indices { block[i] = tick(block[i]) }
    }

    @inline(__always)
    public func tick(_ x: Float) -> Float {
        let y = b0 * x + b1 * x1 + b2 * x2 - a1 * y1 - a2 * y2
        x2 = x1; x1 = x; y2 = y1; y1 = y
        return y
    }
}
