"""The sanitizer: controls become visible marks, bidi overrides disappear, text stays text."""

from __future__ import annotations

from rich.console import Console
from textual.content import Content

from scriptorium.core.sanitize import sanitize, sanitize_line
from scriptorium.tui.common.safe_text import untrusted_content, untrusted_line

HOSTILE = "a\x1b[2Jb\x9b31mc\u202ed\u2066e\x00f\x07g\x7fh\ri"


def test_controls_become_visible_marks_and_bidi_overrides_are_dropped() -> None:
    out = sanitize(HOSTILE)
    assert out == "a\u241b[2Jb\u27e89B\u27e931mcde\u2400f\u2407g\u2421h\u240di"
    assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in out)
    assert "\u202e" not in out and "\u2066" not in out


def test_newlines_and_tabs_are_kept_by_sanitize_and_folded_by_sanitize_line() -> None:
    assert sanitize("one\n\ttwo") == "one\n\ttwo"
    assert sanitize_line("one\n\n\ttwo  three") == "one two three"


def test_every_c0_and_c1_control_is_replaced() -> None:
    controls = "".join(chr(c) for c in [*range(0x20), 0x7F, *range(0x80, 0xA0)] if chr(c) not in "\n\t")
    out = sanitize(controls)
    assert not any(ord(ch) < 0x20 or 0x7F <= ord(ch) < 0xA0 for ch in out)
    assert out.count("⟨") == 32  # every C1 code shown by its hex value


def test_markup_in_untrusted_text_is_displayed_not_interpreted() -> None:
    hostile = "[@click=app.quit]x[/] [bold red]shout[/]"
    content = untrusted_content(hostile)
    assert isinstance(content, Content) and content.plain == hostile and not content.spans
    text = untrusted_line(hostile)
    assert text.plain == hostile and not text.spans
    console = Console(width=80, record=True, color_system=None)
    console.print(text)
    assert hostile in console.export_text()


def test_untrusted_line_is_cut_to_terminal_cells_not_characters() -> None:
    line = untrusted_line("周五下午的部署窗口要不要取消", width=10)
    assert line.cell_len <= 10 and line.plain.endswith("…")
