// The gatehouse command line: parses arguments and runs a command; only `serve` builds the web (Serve.swift), every
// other command opens the domain alone. Thin by design.
import Foundation

let arguments = Array(CommandLine.arguments.dropFirst())
let environment = ProcessInfo.processInfo.environment
let status = Command.run(arguments, environment: environment)
// Leave without running atexit handlers: OpenSSL's cleanup handler frees its global state while worker threads
// that used it may still be ending, which crashed a stopping server now and then (SIGSEGV in libcrypto after
// SIGTERM). Output is flushed first; SQLite needs nothing at exit (every commit is already in the WAL).
fflush(nil)
_exit(status)
