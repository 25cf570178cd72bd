"""Sessions as DAGs on disk: the store, its index, git side, registry, packing, nodes, records and the written marker."""
