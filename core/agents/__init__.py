"""Scriptorium inside real agents (DESIGN §15): hooks, the MCP server, install/uninstall, doctor.

Everything here runs where an agent waits, so modules import only what their command needs.
"""
