"""adjudicator.memo.per_variant: one build per variant object, dropped with the variant."""

from __future__ import annotations

import gc

import maps
from adjudicator.memo import per_variant
from adjudicator.types import Variant


def test_built_once_per_variant_object_and_forgotten_with_it() -> None:
    builds: list[str] = []

    @per_variant
    def province_count(variant: Variant) -> int:
        builds.append(variant.name)
        return len(variant.provinces)

    first, second = maps.load("standard"), maps.load("standard")
    assert province_count(first) == province_count(first) == 75
    assert builds == ["standard"]  # the second call was served from the memo
    assert province_count(second) == 75 and builds == ["standard", "standard"]  # another object: built again
    kept = province_count.__closure__  # type: ignore[attr-defined]
    memo = next(cell.cell_contents for cell in kept if isinstance(cell.cell_contents, dict))
    assert len(memo) == 2
    del first
    gc.collect()
    assert len(memo) == 1  # the collected variant's entry went with it
    assert province_count(second) == 75 and len(builds) == 2
