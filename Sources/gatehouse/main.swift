// The gatehouse command line: parses arguments and hands over to GatehouseWeb.
print("gatehouse: not wired yet")
