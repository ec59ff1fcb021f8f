// The standalone `track-your-stress` program: the UNITI shell around the TrackYourStress module alone.
// Built with `Scripts/build-standalone tys` (the INTEGRATED trait disabled).
import TrackYourStress
import UNITIHost

Launcher.runStandalone(module: TrackYourStressModule())
