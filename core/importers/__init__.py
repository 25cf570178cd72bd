"""Importers: real agents' transcripts (Claude Code, pi, Codex) as Scriptorium sessions."""
