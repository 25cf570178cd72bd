"""The transaction, in parts: `stage` (baseline and stage), `judge` (the rules,
normalization, manual sources, validation), `changes` (the change set: derived views,
the core render, runtime counters), `result` (`TransactionResult`) and `lifecycle`
(`Transaction`: open, edit, check, commit). `scriptorium.core.memory` exports the
public names.
"""
