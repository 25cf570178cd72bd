"""What every feature of the app shares: messages, formatting, safe text, glyphs and small widgets."""
