// The standalone `shades-of-noise` program: the UNITI shell around the ShadesOfNoise module alone.
// Built with `Scripts/build-standalone son` (the INTEGRATED trait disabled).
import ShadesOfNoise
import UNITIHost

Launcher.runStandalone(module: ShadesOfNoiseModule())
