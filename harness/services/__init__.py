"""The two service processes and their clients: `processes.py` (start, supervise and stop the sites
server and the fault proxy: `Services`), `oracle_client.py` (the sites server's oracle API) and
`control_client.py` (the proxy's control API)."""
