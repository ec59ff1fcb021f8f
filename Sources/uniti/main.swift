// The integrated `uniti` host. The list below is the one place that says which feature
// modules the host offers; which of them are enabled comes from the person's studies.
import ShadesOfNoise
import TinnitusNavigator
import TrackYourHearing
import TrackYourStress
import TrackYourTinnitus
import UNITIHost

Launcher.runHost(modules: [
    TrackYourTinnitusModule(),
    TrackYourStressModule(),
    TrackYourHearingModule(),
    TinnitusNavigatorModule(),
    ShadesOfNoiseModule(),
])
