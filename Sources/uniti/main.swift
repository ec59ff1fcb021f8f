// The integrated `uniti` host. Its modules (`featureModules`) are generated from the one list,
// Modules/modules.json, by the GeneratedSourcesPlugin; which of them are enabled comes from the
// person's studies.
import UNITIHost

Launcher.runHost(modules: featureModules)
