import UNITIServer

await UNITIServerCommand.runFromCommandLine()
