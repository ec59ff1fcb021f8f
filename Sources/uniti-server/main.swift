import UNITIServer

// The module parts this program was built with (generated: `serverModuleParts`), then the commands.
ServerModules.bootstrap(serverModuleParts)
await UNITIServerCommand.runFromCommandLine()
