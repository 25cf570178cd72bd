"""Scriptorium's Textual themes: a dark theme from the design pages' palette and a light one.

Node states of the branch graph are theme variables (`$node-written`, ...), so a
theme can recolour them; `VARIABLE_DEFAULTS` fills them in for any theme that does
not define them (Textual's built-in themes, for instance).
"""

from __future__ import annotations

from functools import cache

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


# -- 256-colour terminals -----------------------------------------------------------------------
#
# Rich turns a truecolor value into a 256-colour one in one of two ways: HLS saturation under
# 15 % goes to the grey ramp, anything else to the 6×6×6 cube. The palettes' warm greys sit just
# above that line, so a dark one lands on the cube's olive (#3a3727, the selected row, became
# 58: #5f5f00) and a light one on pink or yellow (#ece7d2 became 224: #ffd7d7): a selected row
# of grey text on olive. `for_256_colours` gives each grey the ramp grey nearest in luminance
# (so contrast is kept and no hue appears); the hues are left to Rich, which keeps them.

GREY_CHROMA = 32  # max - min of the channels (0-255): the palettes' greys are under it, their hues over


def _luminance(rgb: tuple[int, int, int]) -> float:
    """WCAG relative luminance."""
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in rgb)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def contrast(one: tuple[int, int, int], other: tuple[int, int, int]) -> float:
    """WCAG contrast ratio of two colours (1 to 21)."""
    high, low = sorted((_luminance(one), _luminance(other)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def as_256(rgb: tuple[int, int, int]) -> tuple[int, int, int]:
    """What a 256-colour terminal shows for a truecolor value, downgraded as Rich does."""
    from rich.color import Color, ColorSystem

    shown = Color.from_rgb(*rgb).downgrade(ColorSystem.EIGHT_BIT).get_truecolor()
    return shown.red, shown.green, shown.blue


@cache
def _greys() -> tuple[tuple[float, str], ...]:
    """Each grey a 256-colour terminal shows (black, the 24-step ramp, white): its luminance
    and a truecolor value Rich downgrades to it."""
    shown: dict[tuple[int, int, int], str] = {}
    for level in range(256):
        shown.setdefault(as_256((level, level, level)), f"#{level:02x}{level:02x}{level:02x}")
    return tuple((_luminance(rgb), value) for rgb, value in shown.items())


def for_256_colours(variables: dict[str, str]) -> dict[str, str]:
    """The theme's CSS variables as a 256-colour terminal should get them: every opaque grey
    becomes the terminal's grey nearest in luminance; hues, translucent colours (blended
    later) and values that are no colour stay as they are."""
    from textual.color import Color

    adjusted = dict(variables)
    for name, value in variables.items():
        try:
            color = Color.parse(value)
        except Exception:  # noqa: BLE001 - not a colour ("bold", "auto 87%", "none")
            continue
        rgb = (color.r, color.g, color.b)
        if color.a < 1 or max(rgb) - min(rgb) >= GREY_CHROMA:
            continue
        target = _luminance(rgb)
        adjusted[name] = min(_greys(), key=lambda grey: abs(grey[0] - target))[1]
    return adjusted
