"""Scriptorium."""
