"""Scriptorium's Textual themes: a dark theme from the design pages' palette and a light one.

Node states of the branch graph are theme variables (`$node-written`, ...), so a
theme can recolour them; `VARIABLE_DEFAULTS` fills them in for any theme that does
not define them (Textual's built-in themes, for instance).
"""

from __future__ import annotations

from textual.theme import Theme

DARK_NAME = "scriptorium-dark"
LIGHT_NAME = "scriptorium-light"
DEFAULT_THEME = DARK_NAME

# The design pages' palette.
PALETTE = {
    "background": "#16150f",
    "panel": "#1d1c14",
    "border": "#2e2c20",
    "text": "#bdb9a6",
    "accent": "#d4843a",
    "blue": "#4f8ef7",
    "green": "#5aad4e",
    "violet": "#9d6fe0",
    "cyan": "#2db3d5",
    "red": "#e0445a",
}

# Variables the app's CSS uses beyond Textual's own, with the dark theme's values.
VARIABLE_DEFAULTS = {
    "node-written": PALETTE["green"],
    "node-pending": PALETTE["accent"],
    "node-elsewhere": PALETTE["cyan"],
    "node-rewound": PALETTE["red"],
    "node-unrecorded": "#77735f",
    "node-head": PALETTE["blue"],
    "graph-line": "#5e5a47",
    "graph-spawn": PALETTE["violet"],
    "meter-fill": PALETTE["green"],
    "meter-over": PALETTE["red"],
    "muted-text": "#8a8570",
    "faint-text": "#55513f",
}

DARK = Theme(
    name=DARK_NAME,
    primary=PALETTE["accent"],
    secondary=PALETTE["violet"],
    accent=PALETTE["blue"],
    warning=PALETTE["accent"],
    error=PALETTE["red"],
    success=PALETTE["green"],
    foreground=PALETTE["text"],
    background=PALETTE["background"],
    surface=PALETTE["panel"],
    panel=PALETTE["border"],
    dark=True,
    variables={
        **VARIABLE_DEFAULTS,
        "border-blurred": PALETTE["border"],
        "footer-background": PALETTE["panel"],
        "block-cursor-background": "#3a3727",
        "block-cursor-foreground": "#ece7d2",
        "block-cursor-blurred-background": "#2a281d",
        "block-hover-background": "#24231a",
    },
)

LIGHT = Theme(
    name=LIGHT_NAME,
    primary="#b0651f",
    secondary="#7a4fc4",
    accent="#2f6fd6",
    warning="#b0651f",
    error="#c0293f",
    success="#3f8a35",
    foreground="#2b2a22",
    background="#f7f4ea",
    surface="#efebdd",
    panel="#ddd7c2",
    dark=False,
    variables={
        "node-written": "#3f8a35",
        "node-pending": "#b0651f",
        "node-elsewhere": "#1b8aa8",
        "node-rewound": "#c0293f",
        "node-unrecorded": "#8d8874",
        "node-head": "#2f6fd6",
        "graph-line": "#a9a38c",
        "graph-spawn": "#7a4fc4",
        "meter-fill": "#3f8a35",
        "meter-over": "#c0293f",
        "muted-text": "#6f6a58",
        "faint-text": "#b3ad96",
        "border-blurred": "#ddd7c2",
        "footer-background": "#e6e1cf",
        "block-cursor-background": "#e3d9bd",
        "block-cursor-foreground": "#1d1c14",
        "block-cursor-blurred-background": "#ebe4cf",
        "block-hover-background": "#f0ead9",
    },
)

THEMES = (DARK, LIGHT)
