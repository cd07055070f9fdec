"""The simulation Tally's card tracking (interpreter/report.py): which sets a moving card joins is
worked out once per pair of zones, and the one-card record (`moved1`, for the machine's fast
move) is the same as the general one (`moved`)."""
from __future__ import annotations

import itertools

from cardsmith.interpreter.report import Tally

# zone key -> (owner seat or None, visibility), as Tally.begin reads them from the zone declarations
ZONES = {
    "deck:0": (0, "hidden"), "hand:0": (0, "owner"), "table:0": (0, "public"),
    "hand:1": (1, "owner"), "table:1": (1, "public"),
    "market": (None, "public"), "box": (None, "hidden"),
}


def _tally() -> Tally:
    t = Tally(cards=True)
    t.had, t.drew, t.played = [set(), set()], [set(), set()], [set(), set()]
    t.zones = dict(ZONES)
    return t


def _sets(t: Tally) -> tuple:
    return tuple(tuple(sorted(s) for s in getattr(t, way)) for way in ("had", "drew", "played"))


def test_the_rules_of_had_drew_and_played():
    t = _tally()
    t.moved(None, [1], ["deck:0"], "hand:0")        # drawn: had and drew
    t.moved(None, [2], ["hand:0"], "table:0")       # played from the hand: had and played
    t.moved(None, [3], ["market"], "hand:1")        # bought into a hand: had and drew
    t.moved(None, [4], ["hand:1"], "hand:1")        # within the same hand: had only
    t.moved(None, [5], ["table:1"], "market")       # public to public: nothing
    t.moved(None, [6], ["box"], "deck:0")           # into a hidden zone: had only
    assert _sets(t) == (([1, 2, 6], [3, 4]), ([1], [3]), ([2], []))


def test_one_card_record_equals_the_general_one_for_every_pair_of_zones():
    for n, (src, key) in enumerate(itertools.product(ZONES, repeat=2)):
        general, one = _tally(), _tally()
        general.moved(None, [n], [src], key)
        one.moved1(n, src, key)
        assert _sets(general) == _sets(one), (src, key)


def test_begin_forgets_the_worked_out_pairs():
    """A Tally begun again (a new game) records into its new sets, not those of the pairs it
    worked out before."""
    from types import SimpleNamespace
    m = SimpleNamespace(n_players=2, zones={key: [] for key in ZONES},
                        zone_info={key: (SimpleNamespace(visibility=vis), seat, None)
                                   for key, (seat, vis) in ZONES.items()})
    t = Tally(cards=True)
    t.begin(m)
    t.moved1(7, "deck:0", "hand:0")
    t.begin(m)
    t.moved1(8, "deck:0", "hand:0")
    assert _sets(t) == (([8], []), ([8], []), ([], []))


def test_no_card_tracking_records_nothing():
    t = _tally()
    t.cards = False
    t.moved(None, [1], ["deck:0"], "hand:0")
    assert _sets(t) == (([], []), ([], []), ([], []))
