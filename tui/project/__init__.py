"""The Project screen: trilogy memory, its injection accounting and area map."""
