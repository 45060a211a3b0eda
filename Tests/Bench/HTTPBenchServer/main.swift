// The HTTP benchmark's server: GET /healthz → 200 "ok" through the real Router and Server.
// Everything runs from BenchServer.swift (closures written in main.swift must not run on other threads).
BenchServer.main()
