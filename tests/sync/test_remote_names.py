"""Remote names are whole strings: a name git would read as another ("origin\n…") is refused
before git sees it, and nothing is added."""

from __future__ import annotations

import subprocess

import pytest

from scriptorium.core.memory import Workspace
from scriptorium.core.sync.remote import RemoteError, add_remote, list_remotes


@pytest.mark.parametrize("name", ["origin\n", "origin\nother", "-origin", "", "a" * 65, "o/rigin"])
def test_a_name_that_is_not_wholly_letters_digits_dots_and_dashes_is_refused(tmp_path, name):
    root = Workspace.open(tmp_path / "state").root
    bare = tmp_path / "remote.git"
    subprocess.run(["git", "init", "-q", "--bare", str(bare)], check=True)
    with pytest.raises(RemoteError, match="invalid remote name"):
        add_remote(root, name, str(bare))
    assert list_remotes(root) == []
    assert [r.name for r in [add_remote(root, "origin.2_x-y", str(bare))]] == ["origin.2_x-y"]
