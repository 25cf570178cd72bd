"""Glyphs of the branch graph's node states (colours come from the theme: `$node-<state>`)."""

from __future__ import annotations

from ..sessions.states import ELSEWHERE, PENDING, REWOUND, UNRECORDED, WRITTEN

HEAD = "head"
GLYPHS = {WRITTEN: "●", PENDING: "○", ELSEWHERE: "◌", REWOUND: "╳", UNRECORDED: "·", HEAD: "◉"}
LABELS = {WRITTEN: "written", PENDING: "pending", ELSEWHERE: "elsewhere", REWOUND: "rewound",
          UNRECORDED: "not recorded", HEAD: "head"}
