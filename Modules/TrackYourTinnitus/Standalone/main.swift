// The standalone `track-your-tinnitus` program: the UNITI shell around the TrackYourTinnitus module alone.
// Built with `Scripts/build-standalone tyt` (the INTEGRATED trait disabled).
import TrackYourTinnitus
import UNITIHost

Launcher.runStandalone(module: TrackYourTinnitusModule())
