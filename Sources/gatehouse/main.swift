// The gatehouse command line: parses arguments and hands over to GatehouseWeb. Thin by design.
import Foundation
import GatehouseWeb

let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment
exit(Command.run(arguments, environment: environment))
