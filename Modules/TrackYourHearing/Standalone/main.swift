// The standalone `track-your-hearing` program: the UNITI shell around the TrackYourHearing module alone.
// Built with `Scripts/build-standalone tyh` (the INTEGRATED trait disabled).
import TrackYourHearing
import UNITIHost

Launcher.runStandalone(module: TrackYourHearingModule())
