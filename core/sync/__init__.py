"""Memory on every machine: sync through git remotes, merged by block (DESIGN §17).

`remote` (the git side), `blocks` (the merge of topics), `evidence` (the union of
archives), `run` (fetch, merge, install, push), `conflicts` (list and settle), `status`.
Sessions and runtime files never travel; only `topics/`, `sources/` and the shared
workspace ids (`workspaces.json`) do.
"""
