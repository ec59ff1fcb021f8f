// The standalone `tinnitus-navigator` program: the UNITI shell around the TinnitusNavigator module alone.
// Built with `Scripts/build-standalone tn` (the INTEGRATED trait disabled).
import TinnitusNavigator
import UNITIHost

Launcher.runStandalone(module: TinnitusNavigatorModule())
