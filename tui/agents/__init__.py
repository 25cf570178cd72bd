"""The Agents screen: Scriptorium inside Claude Code, Codex and pi."""
