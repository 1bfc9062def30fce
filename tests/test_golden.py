"""The recorded searches of tests/golden.py give the same moves and statistics: a
reorganisation of the search code must not change what it plays."""
import json

import pytest

import golden

RECORDED = json.loads(golden.PATH.read_text())
POSITIONS = dict(golden.positions())


@pytest.mark.parametrize("key", sorted(RECORDED))
def test_same_move_and_statistics(key):
    pname, cname = key.split("/")
    assert golden.run(pname, POSITIONS[pname], golden.CONFIGS[cname]) == RECORDED[key]
